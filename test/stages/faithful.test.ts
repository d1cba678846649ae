// 屏幕上的文字要如实：emoji 的两半分在两个流事件里到达、服务商的错误体不是 OpenAI 的格式、文件夹名里带着转义序列，
// 用户看到的都是原本的字（不可信的控制字符照样显示成转义）。经真实入口、管道输入、假 OpenAI 服务验证。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { text } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY, startStage } from '../helpers/run-stage.ts';
import { waitUntil } from '../helpers/wait.ts';
import { workdir } from '../helpers/workdir.ts';

/** 聊天流的一个事件。JSON.stringify 把落单的半个 emoji 写成 \ud83d 这样的转义，和真实服务商发的一样。 */
const event = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 显示如实`, () => {
        test('emoji 的两个 UTF-16 半边分在两个事件、两次读取里到达：屏幕上是 😀，不是两个 �；历史照样是原文', async () => {
            let release = () => {};
            const hold = new Promise<void>((resolve) => (release = resolve));
            const fake = await startFakeOpenAI({
                replies: [
                    {
                        kind: 'sse',
                        body: event({ role: 'assistant', content: '' }) + event({ content: '笑脸\ud83d' }),
                        hold,
                        rest: event({ content: '\ude00！' }) + event({}, 'stop') + 'data: [DONE]\n\n',
                    },
                    text('第二句'),
                ],
            });
            try {
                const run = startStage(stage, { input: ['来个表情', '再说一句'], env: { OPENAI_BASE_URL: fake.url } });
                // 前一半所在的那批增量已经显示完了（「笑脸」出现），后一半才发出：两半一定分在两次读取里
                await waitUntil('前一半之前的字显示出来', () => run.stdout().includes('笑脸'), run.stdout);
                release();
                const r = await run.done;
                assert.equal(r.code, 0, r.stderr);
                assert.match(r.stdout, /笑脸😀！/);
                assert.doesNotMatch(r.stdout, /\ufffd/);
                const history = fake.requests[1].body.messages.filter((m: any) => m.role === 'assistant');
                assert.equal(history.at(-1).content, '笑脸😀！');
            } finally {
                await fake.close();
            }
        });

        test('不是 OpenAI 格式的错误体：{"error":"…","message":"…"} 两段都显示；网页和纯文本显示开头，控制字符转义', async () => {
            const page = `<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\x1b]0;pwned\x07${'很长的网页'.repeat(400)}</body></html>`;
            const r = await runAgent(stage, {
                input: ['一', '二', '三'],
                replies: [
                    // 400 不重试：这里只看显示
                    { kind: 'http', status: 400, body: '{"error":"SyntaxError","message":"upstream overloaded"}' },
                    { kind: 'http', status: 400, body: page },
                    text('恢复了'),
                ],
            });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stderr, /请求失败：HTTP 400：SyntaxError：upstream overloaded\n/);
            assert.match(r.stderr, /请求失败：HTTP 400：<html> <head><title>502 Bad Gateway<\/title><\/head> <body>\\x1b\]0;pwned\\x07(很长的网页)+[^\n]*…\n/);
            assert.ok(r.stderr.length < 2000, '整个网页不该都打出来');
            assert.doesNotMatch(r.stderr, /\x1b|\x07/);
            assert.match(r.stdout, /恢复了/);
        });
    });
}

for (const stage of HARDENED_ONLY) {
    test(`${stage}: 文件夹名里的转义序列（改窗口标题）在启动、信任问题和退出时的保存提示里都显示成转义`, async () => {
        const cwd = path.join(workdir(), 'proj\x1b]0;pwned\x07\x1b[2J');
        fs.mkdirSync(path.join(cwd, '.geekagent'), { recursive: true });
        // 要信任才生效的设置：启动时先问信任问题
        fs.writeFileSync(path.join(cwd, '.geekagent', 'GeekAgent.json'), JSON.stringify({ root: '..', tools: { run_shell: 'allow' } }));
        const r = await runAgent(stage, { cwd, input: ['n', '你好'], replies: [text('你好！')] });
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /你好！/);
        assert.ok(r.stdout.includes('（退出前已保存 1 个对话到 ') && r.stdout.includes('proj\\x1b]0;pwned\\x07\\x1b[2J/.geekagent/sessions.json）'), r.stdout);
        assert.doesNotMatch(r.stdout + r.stderr, /\x1b|\x07/);
    });
}
