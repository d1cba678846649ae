// 生命周期：取消能传到工具（shell 进程组被杀、抓网页断开、MCP 收到取消通知），Agent 启动的东西不比它活得久，
// MCP 握手不挡住提示符，stdout 被提前关掉（… | head）时安静退出。
// 终端里的 Ctrl+C 需要 tmux；没有 tmux 时跳过那一组。
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startFakeOpenAI, type FakeServer } from '../helpers/fake-openai.js';
import { REPO_ROOT, runStage, stagesFrom } from '../helpers/run-stage.js';
import { readRecords, server } from '../mcp/util.js';

const probe = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
const skip = probe.status === 0 ? false : `tmux 不可用：${probe.error?.message ?? probe.stderr}`;
const TSX_LOADER = import.meta.resolve('tsx');
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mark = () => `${Math.floor(Math.random() * 1e6) + 1000}.25`;   // sleep 的秒数兼作标记

// 命令行里带着 marker 的进程（读 /proc 下每个进程的 cmdline）
function processesWith(marker: string): string[] {
    const found: string[] = [];
    for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
        try {
            const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
            if (cmd.includes(marker)) found.push(`${pid}: ${cmd}`);
        } catch { /* 进程刚好结束 */ }
    }
    return found;
}

async function waitUntil(what: string, check: () => boolean, ms = 20_000, show = () => ''): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
        if (Date.now() > deadline) assert.fail(`等待超时：${what}\n${show()}`);
        await sleep(50);
    }
}

function mcpConfig(cwd: string, servers: object): void {
    fs.mkdirSync(path.join(cwd, '.geekagent'), { recursive: true });
    fs.writeFileSync(path.join(cwd, '.geekagent', 'mcp.json'), JSON.stringify({ mcpServers: servers }));
}

for (const stage of stagesFrom('day04')) {
    describe(`${stage}: 终端里 Ctrl+C 取消时工具也停下`, { skip }, () => {
        let fake: FakeServer;
        let hang: http.Server;
        const open = new Set<http.ServerResponse>();   // 还没断开的抓取请求
        let hits = 0;
        const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-life-')));
        const socket = path.join(dir, 'tmux.sock');
        const { TMUX: _t, TMUX_PANE: _p, ...env } = process.env;
        const tmux = (...args: string[]) =>
            execFileSync('tmux', ['-f', '/dev/null', '-u', '-S', socket, ...args], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
        const screen = () => tmux('capture-pane', '-p', '-S', '-200', '-t', 's');
        const count = (text: string) => screen().split(text).length - 1;

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
            try {
                tmux('kill-server');
            } catch { /* 已经退出 */ }
            hang.closeAllConnections();
            hang.close();
            await fake.close();
            fs.rmSync(dir, { recursive: true, force: true });
        });

        test('run_shell 的进程组被杀；day15 起抓网页（fetch、rag_add）断开连接、MCP 调用发出 notifications/cancelled', async () => {
            const cwd = path.join(dir, 'cwd');
            fs.mkdirSync(cwd);
            const log = path.join(dir, 'mcp.log');
            const day15 = stage >= 'day15';
            if (day15) mcpConfig(cwd, { slow: { command: 'node', args: [server('slow-tool.mjs')], env: { MCP_TEST_LOG: log, SLOW_MS: '60000' }, timeout: 60_000 } });
            const marker = mark();
            const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/never`;
            fake.push({ kind: 'tools', calls: [{ name: 'run_shell', arguments: JSON.stringify({ command: `sleep ${marker}` }) }] });
            if (day15) {
                fake.push({ kind: 'tools', calls: [{ name: 'fetch', arguments: JSON.stringify({ url }) }] });
                fake.push({ kind: 'tools', calls: [{ name: 'rag_add', arguments: JSON.stringify({ source: url }) }] });
                fake.push({ kind: 'tools', calls: [{ name: 'mcp_slow_slow', arguments: '{}' }] });
            }
            const vars = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, TERM: 'xterm-256color', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url, OPENAI_MODEL: 'test-model' };
            // stdout 接到 cat：行模式；stdin 仍是终端，Ctrl+C 由 readline 交给程序（取消这一轮，不退出）
            const script = `${quote(process.execPath)} --import ${quote(TSX_LOADER)} ${quote(path.join(REPO_ROOT, stage, 'index.ts'))} | cat; echo EXITED; exec sleep 600`;
            const command = ['env', '-i', ...Object.entries(vars).map(([k, v]) => quote(`${k}=${v}`)), 'sh', '-c', quote(script)].join(' ');
            tmux('new-session', '-d', '-x', '120', '-y', '50', '-s', 's', '-c', cwd, command);
            await waitUntil('启动横幅', () => screen().includes('GeekAgent'), 20_000, screen);
            // day15 的 mcp.json 会启动服务器：先回答一次文件夹信任问题
            const trustAsked = day15 ? 1 : 0;
            if (day15) {
                await waitUntil('信任问题', () => screen().includes('信任文件夹'), 20_000, screen);
                tmux('send-keys', '-t', 's', '-l', 'y');
                tmux('send-keys', '-t', 's', 'Enter');
            }

            // 一轮：输入 → 确认 y → 等工具真的在跑 → Ctrl+C → 这一轮撤销，Agent 还活着
            let round = 0;
            async function cancelDuring(what: string, running: () => boolean): Promise<void> {
                round++;
                tmux('send-keys', '-t', 's', '-l', `round ${round}`);
                tmux('send-keys', '-t', 's', 'Enter');
                await waitUntil(`${what}：确认提示`, () => count('[y/N]') >= round + trustAsked, 20_000, screen);
                tmux('send-keys', '-t', 's', '-l', 'y');
                tmux('send-keys', '-t', 's', 'Enter');
                await waitUntil(`${what}：开始执行`, running, 20_000, screen);
                tmux('send-keys', '-t', 's', 'C-c');
                await waitUntil(`${what}：本轮撤销`, () => count('已中断') >= round, 10_000, screen);
            }

            await cancelDuring('run_shell', () => processesWith(`sleep ${marker}`).length > 0);
            await waitUntil('shell 命令的进程组被杀', () => processesWith(`sleep ${marker}`).length === 0, 3_000, () => processesWith(`sleep ${marker}`).join('\n'));
            if (day15) {
                await cancelDuring('fetch', () => open.size > 0);
                await waitUntil('抓网页的连接被断开', () => open.size === 0, 3_000);
                assert.equal(hits, 1);
                await cancelDuring('rag_add', () => open.size > 0);
                await waitUntil('收录网页时的连接被断开', () => open.size === 0, 3_000);
                assert.equal(hits, 2);
                await cancelDuring('MCP', () => readRecords(log).some((r) => r.msg?.method === 'tools/call'));
                await waitUntil('MCP 服务器收到 notifications/cancelled', () => readRecords(log).some((r) => r.cancelled !== undefined), 3_000,
                    () => fs.readFileSync(log, 'utf8'));
            }
            assert.ok(!screen().includes('EXITED'), `取消不应让 Agent 退出\n${screen()}`);
        });
    });

    describe(`${stage}: 退出时不留后台进程`, () => {
        let fake: FakeServer;
        before(async () => {
            fake = await startFakeOpenAI();
        });
        after(() => fake.close());

        test('run_shell 留下的 nohup 后台任务在 EOF 退出和 SIGTERM 退出时都被杀掉', async () => {
            for (const how of ['EOF', 'SIGTERM'] as const) {
                const marker = mark();
                fake.push(
                    { kind: 'tools', calls: [{ name: 'run_shell', arguments: JSON.stringify({ command: `nohup sleep ${marker} > /dev/null 2>&1 &` }) }] },
                    { kind: 'text', text: 'started' },
                );
                const r = await runStage(stage, {
                    input: how === 'EOF' ? ['start it', 'y'] : ['start it', 'y', ...Array(40).fill('/help')],
                    inputDelayMs: how === 'EOF' ? 0 : 100,
                    env: { OPENAI_BASE_URL: fake.url },
                    timeoutMs: 20_000,
                    onSpawn: (child) => {
                        if (how === 'EOF') return;
                        let out = '';
                        child.stdout!.on('data', (chunk: Buffer) => {
                            out += chunk.toString();
                            if (out.includes('started') && processesWith(`sleep ${marker}`).length) child.kill('SIGTERM');
                        });
                    },
                });
                assert.match(r.stdout, /started/, `${how}\n${r.stdout}\n${r.stderr}`);
                assert.match(r.stdout, /bye/, how);
                await sleep(200);
                assert.deepEqual(processesWith(`sleep ${marker}`), [], `${how}：后台任务在 Agent 退出后还活着`);
            }
        });
    });
}

for (const stage of stagesFrom('day15')) {
    describe(`${stage}: MCP 握手不挡住提示符`, () => {
        let fake: FakeServer;
        before(async () => {
            fake = await startFakeOpenAI();
        });
        after(() => fake.close());

        test('服务器从不回答握手：/help 立刻回答，第一次请求最多等几秒、不带它的工具', async () => {
            const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-life-')));
            mcpConfig(cwd, { mute: { command: 'node', args: [server('never-answers.mjs')], timeout: 2000 } });
            fake.requests.length = 0;
            fake.push({ kind: 'text', text: 'answered without mcp' });
            let helpAt = 0;
            const started = Date.now();
            const r = await runStage(stage, {
                cwd,
                input: ['y', '/help', 'hi', '/mcp'],   // 第一行回答文件夹信任问题
                env: { OPENAI_BASE_URL: fake.url },
                timeoutMs: 20_000,
                onSpawn: (child) => child.stdout!.on('data', (chunk: Buffer) => {
                    if (!helpAt && chunk.toString().includes('/reset')) helpAt = Date.now();
                }),
            });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(helpAt && helpAt - started < 4_000, `/help 等了 ${helpAt - started} ms`);
            assert.match(r.stdout, /answered without mcp/);
            assert.match(r.stdout, /mute（连接中…）/);
            assert.ok(Date.now() - started < 12_000, `整个运行用了 ${Date.now() - started} ms`);
            assert.equal(fake.requests.length, 1);
            assert.ok(!JSON.stringify(fake.requests[0].body).includes('mcp_mute'));
        });
    });
}

for (const stage of stagesFrom('day01')) {
    describe(`${stage}: 读输出的一方先关掉管道`, () => {
        test('安静退出：退出码 0，没有 EPIPE 堆栈', async () => {
            const r = await runStage(stage, {
                // 行之间隔得够久：读端关掉之后一定还有输出要写（启动慢时前几行的输出可能一口气写完）
                input: Array(8).fill('/help'),
                inputDelayMs: 400,
                timeoutMs: 20_000,
                // 读到横幅就关掉读端，像 `… | head -1`
                onSpawn: (child) => child.stdout!.once('data', () => child.stdout!.destroy()),
            });
            assert.equal(r.code, 0, r.stderr);
            assert.doesNotMatch(r.stderr, /EPIPE|Error|    at /);
            if (stage >= 'day08') assert.ok(fs.existsSync(path.join(r.cwd, '.geekagent', 'sessions.json')), '退出前应保存对话');
        });
    });
}
