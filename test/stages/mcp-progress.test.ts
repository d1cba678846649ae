// Day 15：慢工具。10 秒是「沉默」的上限：每 2 秒报一次进度、共跑 13 秒的工具能完成；
// 一声不吭的在 10 秒时超时，报错说明在 mcp.json 的哪里调、现在是多少。
// 两个测试要等十几秒，单独放在这个文件里并发运行，不拖慢其他测试文件。
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { HARDENED_ONLY, runStage } from '../helpers/run-stage.ts';
import { leftovers, readRecords, server, tempDir } from '../mcp/util.ts';

// 每次运行一个标记：两个测试并发，各自只查自己的服务器进程
function workdir(mark: string, env: Record<string, string>): string {
    const cwd = fs.realpathSync(tempDir('geekagent-mcp-progress-'));
    fs.mkdirSync(path.join(cwd, '.geekagent'));
    // 没写 timeout：和从别的客户端抄来的配置一样，用默认的 10 秒
    const build = { command: 'node', args: [server('progress-tool.mjs')], env: { GEEKAGENT_TEST_MARK: mark, RUN_MS: '13000', ...env } };
    fs.writeFileSync(path.join(cwd, '.geekagent', 'mcp.json'), JSON.stringify({ mcpServers: { build } }));
    return cwd;
}

for (const stage of HARDENED_ONLY) {
    async function callBuild(env: Record<string, string>) {
        const fake = await startFakeOpenAI({ replies: [
            { kind: 'tools', calls: [{ id: 'call_build', name: 'mcp_build_build', arguments: '{}' }] },
            { kind: 'text', text: '好了。' },
        ] });
        try {
            const mark = randomUUID();
            const started = Date.now();
            // 第一行回答文件夹信任问题（mcp.json 会启动服务器）
            const r = await runStage(stage, { input: ['y', '构建一下', 'y'], cwd: workdir(mark, env), env: { OPENAI_BASE_URL: fake.url }, timeoutMs: 40_000 });
            assertNoRejections(fake);
            assert.equal(r.code, 0, r.stderr);
            assert.deepEqual(leftovers('', mark), [], '退出后还有 MCP 服务器进程');
            const answer = fake.requests[1].body.messages.find((m: any) => m.role === 'tool');
            return { answer: answer.content as string, took: Date.now() - started };
        } finally {
            await fake.close();
        }
    }

    describe(`${stage}: 慢工具与进度通知`, { concurrency: true }, () => {
        test('13 秒的工具每 2 秒报一次进度：不被 10 秒的超时打断', async () => {
            const { answer, took } = await callBuild({ PROGRESS_MS: '2000' });
            assert.match(answer, /^build 完成，用时 \d+ ms$/);
            assert.ok(took >= 13_000, `只用了 ${took} ms`);
        });

        test('一声不吭的工具 10 秒超时：报错指向 mcp.json 的 timeout 和当前值，并发出取消', async () => {
            const log = path.join(tempDir('geekagent-mcp-progress-log-'), 'received.log');
            const { answer } = await callBuild({ PROGRESS_MS: '0', MCP_TEST_LOG: log });
            assert.equal(answer, '工具执行失败：请求 tools/call 超时（10 秒内没有响应）；'
                + '可在 .geekagent/mcp.json 里调大服务器 build 的 timeout（当前 10000 毫秒）');
            const records = readRecords(log);
            const call = records.find((e) => e.msg?.method === 'tools/call')!.msg;
            // 进度令牌就是请求 id；超时后取消的也是它
            assert.equal(call.params._meta.progressToken, call.id);
            assert.ok(records.some((e) => e.cancelled === call.id && e.reason === 'timeout'));
        });
    });
}
