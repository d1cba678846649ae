// Day 15：还有 MCP 服务器在连接时开始的一轮，先说哪几台还在连接、这一轮没有它们的工具（冷启动的 npx 常常要十几秒）。
// 经真实入口、管道输入、假模型：握手由测试放行的服务器（gated-init.mjs）一直「连接中」，直到模型收到第一个请求。
// 第一次请求前 Agent 最多等服务器 10 秒，这个测试因此要跑十来秒：单独一个文件，和别的文件同时跑。
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { text } from '../../scripts/fake-model/replies.ts';
import { MCP_READY, runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';
import { leftovers, server, tempDir } from '../mcp/util.ts';

const MARK = randomUUID();
const mcpNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.function.name).filter((n: string) => n.startsWith('mcp_'));

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 还在连接的 MCP 服务器`, () => {
        test('第一轮开始时 demo、files 还在连接：先说这一轮没有它们的工具，请求里也没有；连上之后的一轮有它们的工具，不再说', async () => {
            const gate = path.join(tempDir(), 'open');
            const gated = { command: 'node', args: [server('gated-init.mjs')], env: { GEEKAGENT_TEST_MARK: MARK, INIT_GATE: gate } };
            const fast = { ...gated, env: { ...gated.env, INIT_GATE: tempDir() } };   // 放行用的文件已经在了：马上连上
            const cwd = workdir({ '.geekagent/mcp.json': JSON.stringify({ mcpServers: { demo: gated, fast, files: gated } }) });
            const r = await runAgent(stage, {
                cwd,
                // 第一行回答信任问题；第二轮在两台服务器都连上之后才输入（MCP_READY）
                input: ['y', '第一轮', MCP_READY, '第二轮'],
                // 模型收到第一个请求时放行握手
                replies: (_req, n) => {
                    fs.writeFileSync(gate, '');
                    return text(n === 0 ? '第一轮的回答' : '第二轮的回答');
                },
            });
            assert.equal(r.code, 0, r.stderr);
            const line = 'demo、files 还在连接，这一轮没有它们的工具（/mcp 看状态）';
            assert.equal(r.stdout.split(line).length - 1, 1, r.stdout);
            assert.ok(r.stdout.indexOf(line) < r.stdout.indexOf('第一轮的回答'), '在这一轮的回答之前说');
            assert.ok(mcpNames(r.requests[0].body).every((n) => n.startsWith('mcp_fast_')), '第一轮只有已连上的 fast 的工具');
            assert.ok(mcpNames(r.requests[0].body).length > 0);
            assert.ok(mcpNames(r.requests[1].body).includes('mcp_demo_ready'));
            assert.ok(mcpNames(r.requests[1].body).includes('mcp_files_ready'));
            assert.deepEqual(leftovers('', MARK), []);
        });
    });
}
