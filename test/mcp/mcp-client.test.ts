import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMcpConfig, type McpEntry, type McpServerConfig } from '../../hardened/mcp-config.ts';
import { McpManager, mcpPanelText, mcpStatusText, mcpStartupMessages } from '../../hardened/mcp-setup.ts';
import { callMcpTool } from '../../hardened/mcp-tools.ts';
import { policyFor, setupPermissions } from '../../hardened/permissions.ts';
import { killAllGroups } from '../../hardened/process-group.ts';
import type { Tool } from '../../hardened/tools.ts';
import { fakeRegistry, leftovers, readRecords, server, serverOf, tempDir } from './util.ts';

const DEMO = fileURLToPath(new URL('../../hardened/demo-server.mjs', import.meta.url));
// 脱敏在第一次用到时记下密钥值（一次运行里它们不变），所以在任何调用之前就设好这个「密钥」
process.env.GEEKAGENT_FAKE_API_KEY = 'sk-should-not-leak';
const MARK = randomUUID();
const cfg = (args: string[], extra: Partial<McpServerConfig> = {}): McpServerConfig => ({
    command: process.execPath, args, env: { GEEKAGENT_TEST_MARK: MARK, ...extra.env }, timeout: 10000, ...extra,
});

// 把手写的行喂给演示服务器，读回它的 stdout
function talk(lines: (string | object)[]) {
    const input = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
    const r = spawnSync(process.execPath, [DEMO], { input, encoding: 'utf8', timeout: 10000 });
    const out = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    return { status: r.status, out, stderr: r.stderr, raw: r.stdout };
}
const req = (id: unknown, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const call = (id: number, name: string, args?: unknown) => req(id, 'tools/call', { name, arguments: args });
// 经客户端调用一台服务器上的工具，得到转换后的文本（模型看到的就是它）
const callOn = (m: McpManager, server: string, tool: string, args: Record<string, unknown>) => callMcpTool(serverOf(m, server), tool, args);

describe('演示服务器单独运行', () => {
    it('initialize 的版本协商，ping，tools/list', () => {
        const r = talk([
            req(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
            req(1, 'initialize', { protocolVersion: '2025-11-25' }),
            req(2, 'initialize', { protocolVersion: '1999-01-01' }),
            req('p', 'ping'),
            req(3, 'tools/list'),
        ]);
        assert.equal(r.status, 0);
        assert.deepEqual(r.out[0], { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'geekagent-demo', version: '1.0.0' } } });
        assert.equal(r.out[1].result.protocolVersion, '2025-11-25');
        assert.equal(r.out[2].result.protocolVersion, '2025-06-18');
        assert.deepEqual(r.out[3], { jsonrpc: '2.0', id: 'p', result: {} });
        assert.deepEqual(r.out[4].result.tools.map((t: any) => t.name), ['word_count', 'dice']);
        assert.ok(r.out[4].result.tools.every((t: any) => t.annotations.readOnlyHint === true));
        // 除了我们多加的 annotations，名称、描述、inputSchema 与原教程第 15 天逐字一致
        assert.deepEqual(r.out[4].result.tools.map(({ annotations, ...tool }: any) => tool), [
            { name: 'word_count', description: '统计一段文字的字符数与词数（词数按空白切分计算）。', inputSchema: { type: 'object', properties: { text: { type: 'string', description: '要统计的文字' } }, required: ['text'] } },
            { name: 'dice', description: '掷一个六面骰子，返回随机点数。', inputSchema: { type: 'object', properties: {} } },
        ]);
        assert.equal(r.out[4].result.nextCursor, undefined);
        assert.match(r.stderr, /geekagent-demo started/);
    });

    it('word_count、dice、未知工具、错误参数', () => {
        const dice = Array.from({ length: 100 }, (_, i) => call(100 + i, 'dice', {}));
        const r = talk([
            call(1, 'word_count', { text: 'Model Context Protocol' }),
            call(2, 'word_count', { text: '' }),
            call(3, 'word_count', { text: 42 }),
            call(4, 'nope', {}),
            req(5, 'tools/call'),
            call(6, 'word_count', { text: '  你好 🎲\n世界  ' }),
            ...dice,
        ]);
        assert.equal(r.out[0].result.content[0].text, '字符数 22，词数 3');
        assert.match(r.out[1].result.content[0].text, /字符数 0，词数 0/);
        assert.equal(r.out[2].result.isError, true);
        assert.equal(r.out[3].result.isError, true);
        assert.match(r.out[3].result.content[0].text, /nope/);
        assert.equal(r.out[4].error.code, -32602);
        assert.match(r.out[5].result.content[0].text, /字符数 11，词数 3/);
        const rolls = r.out.slice(6).map((m: any) => Number(/\d+/.exec(m.result.content[0].text)![0]));
        assert.equal(rolls.length, 100);
        assert.ok(rolls.every((n: number) => n >= 1 && n <= 6));
    });

    it('未知方法 -32601；通知、响应、垃圾行没有任何输出', () => {
        const r = talk([
            'not json at all',
            '[1,2,3]',
            { jsonrpc: '2.0', method: 'notifications/initialized' },
            { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
            { jsonrpc: '2.0', id: 9, result: {} },
            { jsonrpc: '2.0', id: null, method: 'ping' },
            req(7, 'resources/list'),
        ]);
        assert.equal(r.status, 0);
        assert.deepEqual(r.out, [{ jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } }]);
        assert.equal(r.raw, JSON.stringify(r.out[0]) + '\n');
    });
});

describe('客户端连接演示服务器', () => {
    const logs: string[] = [];
    let manager: McpManager;
    let tools: Tool[];
    const registry = fakeRegistry(['get_current_time']);
    // MCP 工具自己调用 authorize 问用户（默认策略 ask）：确认函数记下提示，按 answer 回答
    const prompts: string[] = [];
    let answer = true;
    setupPermissions({ root: process.cwd(), tools: {} }, async (prompt) => {
        prompts.push(prompt);
        return answer;
    });

    before(async () => {
        manager = new McpManager([{ name: 'demo', config: cfg([DEMO]) }], registry, (s, l) => logs.push(`[mcp:${s}] ${l}`));
        assert.equal(mcpPanelText(manager), '等待信任回答');   // 还没开始连接：信任问题还没答
        const connected = manager.connectAll();
        assert.equal(mcpPanelText(manager), '连接中…');
        await connected;
        tools = [...registry.tools.values()];
    });
    after(() => manager.stopAll());

    it('握手、工具列表、状态文字', () => {
        const demo = serverOf(manager, 'demo');
        assert.equal(demo.status, 'connected', demo.error);
        assert.deepEqual(tools.map((t) => t.name), ['mcp_demo_word_count', 'mcp_demo_dice']);
        assert.ok(tools.every((t) => /^[a-zA-Z0-9_-]{1,64}$/.test(t.name) && t.parameters.type === 'object' && t.authorizes === true));
        assert.match(tools[0].description, /^\[MCP:demo\] 统计/);
        assert.deepEqual(tools.map((t) => policyFor(t.name)), ['ask', 'ask'], '外部程序的工具默认每次询问');
        assert.equal(mcpPanelText(manager), 'demo(2)');
        assert.match(mcpStatusText(manager), /^demo（2 个工具）\n {2}mcp_demo_word_count\n {2}mcp_demo_dice\n {2}每次请求约 [\d,]+ 字符（≈[\d,]+ token）\n {4}geekagent-demo started/);
        assert.deepEqual(logs, ['[mcp:demo] geekagent-demo started']);
        assert.deepEqual(mcpStartupMessages(manager), []);
    });

    it('确认提示、调用、拒绝', async () => {
        // 一个参数一行，值是原文（不截断、不脱敏：太长的行由前端的 askPaged 截短，回答 d 看全文）；有密钥时最后一行说出来
        const key = process.env.GEEKAGENT_FAKE_API_KEY!;
        const pad = 'x'.repeat(200 - 1 - 5) + key + 'z'.repeat(100);
        const args = { text: 'Model Context Protocol', pad, key, more: 'y\n  path：/etc/passwd' };
        const out = await tools[0].run(args);
        assert.match(out, /22.*3/);
        const p = prompts.at(-1)!.split('\n');
        assert.equal(p[0], '即将调用 MCP 工具：mcp_demo_word_count（来自服务器 demo）');
        assert.equal(p[1], '服务器声明：只读');
        assert.equal(p[2], '参数：');
        assert.equal(p[3], '  text："Model Context Protocol"');
        assert.equal(p[4], `  pad："${pad}"`);
        assert.equal(p[5], `  key："${key}"`);
        assert.equal(p[6], '  more："y\\n  path：/etc/passwd"', '值里的换行写成 \\n，冒充不了另一行参数');
        assert.equal(p[7], '确认执行？');
        assert.equal(p[8], '（上面显示的是原文，其中 2 处是你的密钥 GEEKAGENT_FAKE_API_KEY）');
        assert.equal(p.length, 9);
        assert.match(await tools[1].run({}), /[1-6]/);
        answer = false;
        assert.equal(await tools[1].run({}), '调用已取消');
        answer = true;
    });

    it('工具错误（isError）与协议错误都变成异常', async () => {
        await assert.rejects(callOn(manager, 'demo', 'nope', {}), /^Error: 未知工具：nope$/);
        await assert.rejects(callOn(manager, 'demo', 'word_count', { text: 1 }), /text 必须是字符串/);
    });

    it('重连后照常工作；停止后调用立刻失败，且不留进程', async () => {
        // 本测试的演示服务器进程（命令行带着脚本名、环境带着本文件的标记）："pid: 命令行"
        const before = leftovers('demo-server.mjs', MARK);
        assert.equal(before.length, 1);
        assert.equal(await manager.reconnect('demo'), 'demo 已重新连接（2 个工具）');
        assert.equal(serverOf(manager, 'demo').status, 'connected');
        const after = leftovers('demo-server.mjs', MARK);
        assert.equal(after.length, 1);
        assert.notEqual(after[0], before[0], '重连后应是一个新进程');
        assert.deepEqual([...registry.tools.keys()], ['mcp_demo_word_count', 'mcp_demo_dice'], '旧工具注销、新工具注册，不重名');
        assert.notEqual(registry.tools.get('mcp_demo_dice'), tools[1], '换成了新连接上的工具');
        assert.match(await callOn(manager, 'demo', 'dice', {}), /[1-6]/);
        const t0 = Date.now();
        await manager.stopAll();
        assert.ok(Date.now() - t0 < 1900, '演示服务器在 stdin 关闭后应立即退出，不需要 SIGTERM');
        await assert.rejects(callOn(manager, 'demo', 'dice', {}), /MCP 服务器 demo 未在运行：已停止/);
        assert.deepEqual(leftovers('demo-server.mjs', MARK), []);
    });
});

describe('并发与环境', () => {
    it('三个握手各要 1 秒的服务器同时连接', async () => {
        const dir = tempDir();
        const logsFiles = [0, 1, 2].map((i) => join(dir, `slow${i}.log`));
        const entries: McpEntry[] = logsFiles.map((f, i) => ({ name: `slow${i}`, config: cfg([server('slow-init.mjs')], { env: { GEEKAGENT_TEST_MARK: MARK, MCP_TEST_LOG: f } }) }));
        const manager = new McpManager(entries, fakeRegistry());
        const t0 = Date.now();
        await manager.connectAll();
        const total = Date.now() - t0;
        try {
            assert.ok(manager.servers.every((s) => s.status === 'connected'));
            const received = logsFiles.map((f) => readRecords(f).find((r) => r.msg?.method === 'initialize')!.t);
            // 依次连接的话，后一个服务器要等前一个握手完（1 秒）才收到 initialize；同时连接则几乎同时收到。
            // 只比较服务器自己记下的接收时间，不比较总耗时：繁忙的机器上 node 启动本身就可能要好几百毫秒
            const spread = Math.max(...received) - Math.min(...received);
            assert.ok(spread < 900, `initialize 接收时间相差 ${spread} ms（总共 ${total} ms）`);
        } finally {
            await manager.stopAll();
        }
        assert.deepEqual(leftovers('slow-init.mjs', MARK), []);
    });

    it('密钥样的环境变量不传给服务器；配置里的 env、cwd、变量展开生效', async () => {
        const dir = tempDir();
        process.env.my_password_x = 'pw';
        process.env.GEEKAGENT_PLAIN = 'visible';
        const file = join(dir, 'mcp.json');
        writeFileSync(file, JSON.stringify({ mcpServers: { env: {
            command: process.execPath,
            args: ['${GEEKAGENT_SERVERS}/env-dump.mjs', '${GEEKAGENT_UNSET_X:-fallback}'],
            env: { GEEKAGENT_TEST_MARK: MARK, PASSED_TOKEN: '${GEEKAGENT_FAKE_API_KEY}' },
            cwd: dir,
        } } }));
        process.env.GEEKAGENT_SERVERS = server('').replace(/\/$/, '');
        const manager = new McpManager(loadMcpConfig(file), fakeRegistry());
        await manager.connectAll();
        try {
            const dump = JSON.parse(await callOn(manager, 'env', 'env', {}));
            assert.equal(dump.env.GEEKAGENT_FAKE_API_KEY, undefined);
            assert.equal(dump.env.my_password_x, undefined);
            assert.equal(dump.env.GEEKAGENT_PLAIN, 'visible');
            // 配置里明确写出的变量照传：服务器拿到了它。交给模型之前由 execTool 脱敏（经真实入口的检查在
            // test/stages/mcp-agent.test.ts：结果里是 [REDACTED:…]，所有请求里都没有密钥）
            assert.equal(dump.env.PASSED_TOKEN, process.env.GEEKAGENT_FAKE_API_KEY);
            assert.equal(dump.cwd, dir);
            assert.deepEqual(dump.argv, ['fallback']);
        } finally {
            await manager.stopAll();
        }
    });

    it('第二次 Ctrl+C：killAllGroups（退出时也会调用）立即结束正在停止的顽固服务器', async () => {
        const manager = new McpManager([{ name: 'stubborn', config: cfg([server('stubborn.mjs')]) }], fakeRegistry());
        await manager.connectAll();
        assert.equal(serverOf(manager, 'stubborn').status, 'connected');
        const t0 = Date.now();
        const stopping = manager.stopAll();
        await new Promise((r) => setTimeout(r, 200));
        killAllGroups();
        await stopping;
        assert.ok(Date.now() - t0 < 1900, `停止用了 ${Date.now() - t0} ms`);
        assert.deepEqual(leftovers('stubborn.mjs', MARK), []);
    });
});
