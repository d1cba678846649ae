// 生命周期：取消能传到工具（shell 进程组被杀、抓网页断开、MCP 收到取消通知），Agent 启动的东西不比它活得久，
// MCP 握手不挡住提示符，stdout 被提前关掉（… | head）时安静退出。
// 终端里的 Ctrl+C 需要 tmux；没有 tmux 时跳过那一组。
import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI, type FakeServer } from '../../scripts/fake-model/server.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY, startStage } from '../helpers/run-stage.ts';
import { noTmux, Terminal } from '../helpers/terminal.ts';
import { sleepCommand, waitUntil } from '../helpers/wait.ts';
import { workdir } from '../helpers/workdir.ts';
import { readRecords, server } from '../mcp/util.ts';

const mcpConfig = (servers: object) => ({ '.geekagent/mcp.json': JSON.stringify({ mcpServers: servers }) });

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 终端里 Ctrl+C 取消时工具也停下`, { skip: noTmux }, () => {
        let fake: FakeServer;
        let hang: http.Server;
        const open = new Set<http.ServerResponse>();   // 还没断开的抓取请求
        let hits = 0;

        before(async () => {
            fake = await startFakeOpenAI();
            // 从不回答的网页：记下连接，客户端断开时移除
            hang = http.createServer((_req, res) => {
                hits++;
                open.add(res);
                res.on('close', () => open.delete(res));
            });
            await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
        });
        after(async () => {
            hang.closeAllConnections();
            hang.close();
            await fake.close();
        });

        test('run_shell 的进程组被杀；抓网页（fetch、rag_add）断开连接、MCP 调用发出 notifications/cancelled', async () => {
            const log = path.join(workdir(), 'mcp.log');
            const slow = { command: 'node', args: [server('slow-tool.mjs')], env: { MCP_TEST_LOG: log, SLOW_MS: '60000' }, timeout: 60_000 };
            const cwd = workdir(mcpConfig({ slow }));
            const shell = sleepCommand();
            const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/never`;
            fake.push(tools(call('c1', 'run_shell', { command: shell.command })));
            fake.push(tools(call('c2', 'fetch', { url })));
            fake.push(tools(call('c3', 'rag_add', { source: url })));
            fake.push(tools(call('c4', 'mcp_slow_slow')));
            // 行模式：stdout 接到 cat，stdin 仍是终端，Ctrl+C 由 readline 交给程序（取消这一轮，不退出）
            const term = new Terminal(stage, { cwd, lineMode: true, env: { OPENAI_BASE_URL: fake.url } });
            try {
                await term.shows('GeekAgent');
                // mcp.json 会启动服务器：先回答一次文件夹信任问题
                const trustAsked = 1;
                await term.shows('信任文件夹');
                await term.answer('y');

                // 一轮：输入 → 确认 y → 等工具真的在跑 → Ctrl+C → 这一轮撤销，Agent 还活着
                let round = 0;
                async function cancelDuring(what: string, running: () => boolean): Promise<void> {
                    round++;
                    term.enter(`round ${round}`);
                    await waitUntil(`${what}：确认提示`, () => term.count('[y/N]') >= round + trustAsked, () => term.text(true));
                    await term.answer('y');
                    await waitUntil(`${what}：开始执行`, running, () => term.text(true));
                    term.press('C-c');
                    await waitUntil(`${what}：本轮撤销`, () => term.count('已中断') >= round, () => term.text(true));
                }

                await cancelDuring('run_shell', shell.running);
                await waitUntil('shell 命令的进程组被杀', () => !shell.running());
                await cancelDuring('fetch', () => open.size > 0);
                await waitUntil('抓网页的连接被断开', () => open.size === 0);
                assert.equal(hits, 1);
                await cancelDuring('rag_add', () => open.size > 0);
                await waitUntil('收录网页时的连接被断开', () => open.size === 0);
                assert.equal(hits, 2);
                // 这一轮要用 MCP 工具：先等服务器连上（/mcp 里不再是「连接中…」），不赌它在前几轮里已经连好
                for (let asked = 1; term.count('slow（1 个工具') === 0; asked++) {
                    term.enter('/mcp');
                    await waitUntil('/mcp 的回答', () => term.count('slow（') >= asked, () => term.text(true));
                }
                await cancelDuring('MCP', () => readRecords(log).some((r) => r.msg?.method === 'tools/call'));
                await waitUntil('MCP 服务器收到 notifications/cancelled', () => readRecords(log).some((r) => r.cancelled !== undefined),
                    () => fs.readFileSync(log, 'utf8'));
                assert.ok(!term.text(true).includes('EXITED'), `取消不应让 Agent 退出\n${term.text(true)}`);
            } finally {
                term.close();
            }
        });
    });

    describe(`${stage}: 退出时不留后台进程`, () => {
        for (const how of ['EOF', 'SIGTERM'] as const) {
            test(`run_shell 留下的 nohup 后台任务在 ${how} 退出时被杀掉`, async () => {
                const background = sleepCommand();
                const fake = await startFakeOpenAI({
                    replies: [tools(call('c1', 'run_shell', { command: `nohup ${background.command} > /dev/null 2>&1 &` })), text('started')],
                });
                try {
                    // SIGTERM：stdin 一直开着，退出只能来自信号；等回复和后台任务都在了，只发一次
                    const run = startStage(stage, { input: ['start it', 'y'], holdStdin: how === 'SIGTERM', env: { OPENAI_BASE_URL: fake.url } });
                    if (how === 'SIGTERM') {
                        await waitUntil('回复和后台任务', () => run.stdout().includes('started') && background.running(), run.stdout);
                        run.child.kill('SIGTERM');
                    }
                    const r = await run.done;
                    assert.match(r.stdout, /started/, `${how}\n${r.stdout}\n${r.stderr}`);
                    assert.match(r.stdout, /bye/, how);
                    await waitUntil(`${how}：后台任务在 Agent 退出后被杀掉`, () => !background.running());
                } finally {
                    await fake.close();
                }
            });
        }
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: MCP 握手不挡住提示符`, () => {
        test('服务器从不回答握手：/help 照常回答，第一次请求等过 10 秒就发出、不带它的工具', async () => {
            // 握手永远等不到回答（时限也给得很长）：/help 先于回复出现，说明命令不等握手；请求发了出去、不带它的工具，说明第一次请求只等到上限
            const cwd = workdir(mcpConfig({ mute: { command: 'node', args: [server('never-answers.mjs')], timeout: 600_000 } }));
            const r = await runAgent(stage, {
                cwd,
                input: ['y', '/help', 'hi', '/mcp'],   // 第一行回答文件夹信任问题
                replies: [text('answered without mcp')],
            });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /\/reset/);
            assert.ok(r.stdout.indexOf('/reset') < r.stdout.indexOf('answered without mcp'), r.stdout);
            assert.match(r.stdout, /answered without mcp/);
            assert.match(r.stdout, /mute（连接中…）/);
            assert.equal(r.requests.length, 1);
            assert.ok(!JSON.stringify(r.requests[0].body).includes('mcp_mute'));
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 读输出的一方先关掉管道`, () => {
        test('安静退出：退出码 0，没有 EPIPE 堆栈', async () => {
            // 读到横幅就关掉读端，像 `… | head -1`；之后才送命令进去，它们的输出一定写进已关掉的管道
            const run = startStage(stage, { input: [], holdStdin: true });
            await once(run.child.stdout!, 'data');
            run.child.stdout!.destroy();
            for (let i = 0; i < 8; i++) run.write('/help');
            run.end();
            const r = await run.done;
            assert.equal(r.code, 0, r.stderr);
            assert.doesNotMatch(r.stderr, /EPIPE|Error|    at /);
            assert.ok(fs.existsSync(path.join(r.cwd, '.geekagent', 'sessions.json')), '退出前应保存对话');
        });
    });
}
