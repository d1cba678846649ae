// Day 1：模型 API 出错时。错误要说清楚（状态码、服务商原话、该检查什么），失败的一轮回滚，REPL 继续；
// 能重试的（限流、5xx、连不上）按间隔重试。只在加固版上跑（课由检查和 lessons.test.ts 测）。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { text } from '../../scripts/fake-model/replies.ts';
import { runAgent, userTexts } from '../helpers/agent.ts';
import { ERROR_FIXTURES, loadHttpFixture, sseFixture, unusedBaseUrl } from '../helpers/fixtures.ts';
import { HARDENED_ONLY, runStage } from '../helpers/run-stage.ts';

// 测试同时跑：这个文件的时间多半花在等重试的间隔上，一个接一个地等太久
describe('模型 API 出错与重试', () => {
    for (const stage of HARDENED_ONLY) {
        describe(stage, { concurrency: true }, () => {
            // 九份录下来的真实错误体在同一次运行里依次出现（每份一轮），最后一轮正常：每一份都不该留下半轮历史
            test('录制的错误体：显示状态码和服务商原话，本轮回滚，REPL 继续', async () => {
                const cases = fs.readdirSync(ERROR_FIXTURES).filter((f) => f.endsWith('.http')).sort().map((file) => {
                    const reply = loadHttpFixture(path.join(ERROR_FIXTURES, file));
                    const retried = reply.status === 429 && !/insufficient_quota/.test(reply.body);
                    // 限流的那份样例要等 19 秒：测试里把 Retry-After 改成 0，只验证重试次数
                    if (retried) reply.headers['retry-after'] = '0';
                    return { file, reply, tries: retried ? 3 : 1, message: JSON.parse(reply.body).error.message as string };
                });
                const r = await runAgent(stage, {
                    input: [...cases.map((c) => `问 ${c.file}`), '最后一问'],
                    replies: [...cases.flatMap((c) => Array(c.tries).fill(c.reply)), text('恢复了')],
                });
                for (const c of cases) {
                    assert.ok(r.stderr.includes(`HTTP ${c.reply.status}`), `${c.file}\n${r.stderr}`);
                    assert.ok(r.stderr.includes(c.message.slice(0, 60)), `${c.file}\n${r.stderr}`);
                }
                assert.equal(r.requests.length, cases.reduce((n, c) => n + c.tries, 0) + 1, '重试次数不对');
                assert.match(r.stdout, /恢复了/);
                assert.deepEqual(userTexts(r.requests.at(-1)!.body), ['最后一问'], '失败的一轮没有回滚');
                assert.equal(r.code, 0);
            });

            test('401 不重试并提示检查 OPENAI_API_KEY', async () => {
                const r = await runAgent(stage, { input: ['hi'], replies: [loadHttpFixture(path.join(ERROR_FIXTURES, 'openai-401-invalid-api-key.http'))] });
                assert.equal(r.requests.length, 1);
                assert.match(r.stderr, /请求失败：HTTP 401：Incorrect API key provided/);
                assert.match(r.stderr, /OPENAI_API_KEY/);
            });

            test('错误之后的提示行：模型名、额度、上下文窗口、不支持工具', async () => {
                const files = ['openai-404-model-not-found', 'openai-429-insufficient-quota', 'openai-400-context-length-exceeded', 'ollama-400-does-not-support-tools'];
                const r = await runAgent(stage, { input: ['一', '二', '三', '四'], replies: files.map((f) => loadHttpFixture(`${f}.http`)) });
                assert.equal(r.requests.length, 4, '这几种错误都不该重试');
                assert.match(r.stderr, /提示：请检查 OPENAI_MODEL/);
                assert.match(r.stderr, /提示：账户额度不足/);
                assert.match(r.stderr, /提示：对话超出了模型的上下文窗口/);
                assert.match(r.stderr, /提示：这个模型不支持工具调用/);
                assert.equal(r.code, 0);
            });

            test('429 带 Retry-After：等待后重试成功', async () => {
                const limited = { kind: 'http', status: 429, headers: { 'retry-after': '1' }, body: '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}' } as const;
                // 只有下限：机器再慢也只会等得更久
                const started = Date.now();
                const r = await runAgent(stage, { input: ['hi'], replies: [limited, text('终于好了')] });
                assert.equal(r.requests.length, 2);
                assert.ok(Date.now() - started >= 1000, '没有按 Retry-After 等待');
                assert.match(r.stdout, /终于好了/);
                assert.match(r.stdout + r.stderr, /1\.0 秒后重试/);
            });

            test('503 之后 200：重试一次，回复正常显示', async () => {
                const r = await runAgent(stage, { input: ['hi'], replies: [{ kind: 'http', status: 503, body: 'Service Unavailable' }, text('来了')] });
                assert.equal(r.requests.length, 2);
                assert.match(r.stdout, /来了/);
            });

            test('流在事件中途断开：报错并回滚', async () => {
                const r = await runAgent(stage, { input: ['第一问', '第二问'], replies: [{ kind: 'cut', text: '说到一半' }, text('ok')] });
                assert.match(r.stdout, /说到一半/);
                assert.match(r.stderr, /请求失败：/);
                assert.deepEqual(userTexts(r.requests[1].body), ['第二问']);
            });

            test('流里的错误（HTTP 200）：报错并回滚', async () => {
                const r = await runAgent(stage, { input: ['第一问', '第二问'], replies: [sseFixture('midstream-error'), text('ok')] });
                assert.match(r.stderr, /The server had an error while processing your request/);
                assert.deepEqual(userTexts(r.requests[1].body), ['第二问']);
            });

            test('连不上服务：重试两次后报告 base URL，REPL 继续', async () => {
                const url = await unusedBaseUrl();
                const r = await runStage(stage, { input: ['hi', '/help'], env: { OPENAI_BASE_URL: url } });
                assert.match(r.stderr, new RegExp(`无法连接 ${url.replace(/[.]/g, '\\.')}（ECONNREFUSED）`));
                assert.equal((r.stdout + r.stderr).match(/秒后重试/g)?.length, 2);
                assert.match(r.stdout, /\/reset/);
                assert.match(r.stderr, /提示：请检查 OPENAI_BASE_URL/);
                assert.equal(r.code, 0);
            });

            // 新手常见的两种写错：主机名拼错（ENOTFOUND）、端口超出范围（URL 无效）；都要给出检查 OPENAI_BASE_URL 的提示
            for (const [kind, url] of [['ENOTFOUND', 'http://geekagent-nohost.invalid/v1'], ['ERR_INVALID_URL', 'http://127.0.0.1:99999/v1']]) {
                test(`连不上服务（${kind}）：提示检查 OPENAI_BASE_URL`, async () => {
                    const r = await runStage(stage, { input: ['hi'], env: { OPENAI_BASE_URL: url } });
                    assert.match(r.stderr, new RegExp(`（${kind}）\\n提示：请检查 OPENAI_BASE_URL`));
                    assert.equal(r.code, 0);
                });
            }
        });
    }
});
