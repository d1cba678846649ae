// 第 3 天：shell 工具与执行前确认。
import fs from 'node:fs';
import path from 'node:path';
import { call, tools } from '../../fake-model/replies.ts';
import type { LearnerRun } from '../harness.ts';
import { contentOf, mark, messagesOf, requestFor, showMessages, toolNames, toolResult, toolSchema } from '../look.ts';
import { Miss, type Check, type Scenario } from '../types.ts';

const SECTION = 'day04/README.md#第-3-天shell-工具与执行前确认';

/** 模型调用一次 run_shell：命令在工作目录里建一个文件 ran.txt，再打印 marker；answers 是这之后打的行。 */
const shell = (answers: string[], marker: string): Scenario => ({
    lines: ['跑个命令', ...answers],
    model: { 跑个命令: tools(call('call_sh_1', 'run_shell', { command: `echo ran > ran.txt && echo ${marker}` })) },
    timeoutMs: 15_000,
});

const YES = mark('SHELLOUT');
const NO = mark('SHELLNO');
const SAID_YES = shell(['y', '/exit'], YES);
const ran = (run: LearnerRun) => fs.existsSync(path.join(run.dir, 'ran.txt'));
const OUT = mark('STDOUT');
const ERR = mark('STDERR');

export const checks: Check[] = [
    {
        day: 3,
        name: 'run_shell 以 schema 交给模型，参数 command',
        hint: '注册工具 run_shell：parameters { type: "object", properties: { command: { type: "string" } }, required: ["command"] }',
        section: SECTION,
        scenario: SAID_YES,
        expect(run) {
            const first = requestFor(run, '跑个命令');
            const schema = toolSchema(first, 'run_shell');
            if (schema?.parameters?.properties?.command?.type !== 'string') {
                throw new Miss('请求的 tools 里有 run_shell，参数 command 的类型是 string', `tools：${JSON.stringify(toolNames(first))}；run_shell：${JSON.stringify(schema ?? null)}`);
            }
        },
    },
    {
        day: 3,
        name: '答了 y 的命令执行、输出回给模型',
        hint: '确认问题的回答是 stdin 的下一行；是 y 就用 sh -c 执行命令（cwd 是当前目录），把 stdout 作为工具结果交回',
        section: SECTION,
        scenario: SAID_YES,
        expect(run) {
            const result = toolResult(run, 'call_sh_1');
            if (!ran(run) || !result?.includes(YES)) {
                throw new Miss(`回答 y 之后命令执行了（工作目录里有 ran.txt），tool 消息里有命令的输出「${YES}」`,
                    `ran.txt ${ran(run) ? '有' : '没有'}；tool 消息：${result ?? '（没有）'}\n${showMessages(run.requests.at(-1))}`);
            }
        },
    },
    {
        day: 3,
        name: '没答 y 的命令不执行，模型得知被拒绝',
        hint: '执行前先问：把命令原样显示出来，读下一行，只有 y / yes 才执行；否则不执行，工具结果是一句「已取消」之类的话',
        section: SECTION,
        scenario: shell(['n', '/exit'], NO),
        expect(run) {
            const result = toolResult(run, 'call_sh_1');
            if (ran(run) || result === undefined || result.includes(NO)) {
                throw new Miss('回答 n：命令不执行（工作目录里没有 ran.txt），模型仍然收到这次调用的 tool 消息（说明没有执行）',
                    `ran.txt ${ran(run) ? '有——命令执行了' : '没有'}；tool 消息：${result ?? '（没有）'}`);
            }
        },
    },
    {
        day: 3,
        name: '确认时输入已经结束（EOF）：算「否」，命令不执行，Agent 照常退出',
        hint: '确认读到输入结束就当作拒绝；之后主循环也读到输入结束，正常退出',
        section: SECTION,
        // 打完「跑个命令」就没有别的行了：下一次 Agent 在等输入（就是在问要不要执行）时，检查关掉 stdin
        scenario: shell([], mark('SHELLEOF')),
        expect(run) {
            if (ran(run) || run.timedOut || run.code !== 0) {
                throw new Miss('模型要执行命令时 stdin 已经结束：命令不执行，Agent 以退出码 0 结束',
                    `ran.txt ${ran(run) ? '有——命令执行了' : '没有'}；${run.timedOut ? '15 秒还没退出' : `退出码 ${run.code}`}`);
            }
        },
    },
    {
        day: 3,
        name: '确认的回答 y 只是回答，不当作一句话发给模型',
        hint: '确认和主循环从同一个输入队列取行：被确认取走的那一行不再交给主循环',
        section: SECTION,
        scenario: SAID_YES,
        expect(run) {
            const said = run.requests.flatMap((body) => messagesOf(body).filter((m) => m.role === 'user').map(contentOf));
            // 命令执行了，才说明 y 真的被确认取走：什么都没发生（比如一启动就崩溃）时没有「y」不算通过
            if (said.includes('y') || !ran(run)) {
                throw new Miss('回答 y 被确认取走（命令执行了），模型收到的 user 消息里没有单独的「y」',
                    `命令${ran(run) ? '执行了' : '没有执行（工作目录里没有 ran.txt）'}；user 消息：${JSON.stringify([...new Set(said)])}`);
            }
        },
    },
    {
        day: 3,
        name: '命令失败时，stdout 和 stderr 都作为结果回给模型',
        hint: '分别收集子进程的 stdout 和 stderr，结束时连起来交回；退出码不是 0 也照样返回（可以在前面注明失败），不要只取 stdout 或直接抛错',
        section: SECTION,
        scenario: {
            lines: ['跑个会失败的命令', 'y', '/exit'],
            model: { 会失败: tools(call('call_sh_fail', 'run_shell', { command: `echo ${OUT}; echo ${ERR} >&2; exit 3` })) },
            timeoutMs: 15_000,
        },
        expect(run) {
            const result = toolResult(run, 'call_sh_fail');
            if (!result?.includes(OUT) || !result.includes(ERR)) {
                throw new Miss(`命令 echo ${OUT}; echo ${ERR} >&2; exit 3（回答 y）：tool 消息里两个标记都在`, `tool 消息：${result ?? '（没有）'}`);
            }
        },
    },
];
