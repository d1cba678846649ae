// 第 7 天：全屏界面与用量面板。全屏界面只在 stdin、stdout 都是终端时才有；管道里能检查的是行模式和用量从哪来。
import { text } from '../../fake-model/replies.ts';
import { clip, mark } from '../look.ts';
import { Miss, type Check, type Scenario } from '../types.ts';

const SECTION = 'day08/README.md#第-7-天全屏界面与用量面板';
const ANSWER = mark('PLAIN');
const HELLO: Scenario = {
    lines: ['你好', '/exit'],
    model: () => () => ({ ...text(ANSWER), usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 } }),
};

export const checks: Check[] = [
    {
        day: 7,
        name: 'stdin、stdout 不是终端时用行模式：照常问答，输出里没有终端控制序列',
        hint: 'process.stdin.isTTY && process.stdout.isTTY 都为真才进全屏（原始模式、备用屏幕）；否则用第 4 天的行式 REPL，不上色、不画界面',
        section: SECTION,
        optional: true,   // 原教程不是终端就退出；管道里的行模式是本仓库多做的
        pipeOnly: true,
        scenario: HELLO,
        expect(run) {
            const esc = run.stdout.indexOf('\x1b');
            if (!run.stdout.includes(ANSWER) || esc >= 0) {
                throw new Miss(`管道里运行：回答「${ANSWER}」出现在 stdout 上，stdout 里没有 ESC（\\x1b）开头的控制序列`,
                    esc >= 0 ? `第 ${esc} 个字符起：${JSON.stringify(run.stdout.slice(esc, esc + 40))}` : clip(run.stdout, 400));
            }
        },
    },
    {
        day: 7,
        name: '流式请求带 stream_options: { include_usage: true }，向服务商要用量',
        hint: '面板的「本轮」「累计」来自服务商报的 usage：流式请求要加 stream_options: { include_usage: true }，它才在流的最后一块里带上 usage',
        section: SECTION,
        scenario: HELLO,
        expect(run) {
            const missing = run.requests.find((body) => body?.stream === true && body?.stream_options?.include_usage !== true);
            if (run.requests.length === 0 || missing) {
                throw new Miss('每个流式请求都带 "stream_options": {"include_usage": true}', missing ? `stream_options：${JSON.stringify(missing.stream_options ?? null)}` : '没有请求');
            }
        },
    },
];
