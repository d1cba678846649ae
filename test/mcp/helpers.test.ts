import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RequestTable, RpcError } from '../../hardened/jsonrpc.ts';
import { expandVars, loadMcpConfig } from '../../hardened/mcp-config.ts';
import { meaningfulStderr } from '../../hardened/mcp-log.ts';
import { McpManager, mcpPanelText, mcpStatusText } from '../../hardened/mcp-setup.ts';
import { callMcpTool, convertResult, mcpToolName } from '../../hardened/mcp-tools.ts';
import { normalizeSchema as normalize } from '../../hardened/schema.ts';
import { truncateOutput } from '../../hardened/tools.ts';
import { fakeRegistry, serverOf, tempDir } from './util.ts';

describe('配置与变量展开', () => {
    it('${NAME} 与 ${NAME:-默认}', () => {
        process.env.GEEKAGENT_T_A = 'x';
        process.env.GEEKAGENT_T_EMPTY = '';
        delete process.env.GEEKAGENT_T_B;
        assert.equal(expandVars('${GEEKAGENT_T_A}/${GEEKAGENT_T_B:-day}/${GEEKAGENT_T_EMPTY:-d2}/${GEEKAGENT_T_EMPTY}/$GEEKAGENT_T_A/${1X}'),
            'x/day/d2//$GEEKAGENT_T_A/${1X}');
        assert.equal(expandVars('${GEEKAGENT_T_B:-}'), '');
        assert.throws(() => expandVars('${SURELY_UNSET_VAR}'), /环境变量 SURELY_UNSET_VAR 未设置/);
    });

    it('文件不存在 → 没有服务器；坏文件 → 抛出中文错误', () => {
        const dir = tempDir();
        assert.deepEqual(loadMcpConfig(join(dir, 'nope.json')), []);
        writeFileSync(join(dir, 'bad.json'), '{oops');
        assert.throws(() => loadMcpConfig(join(dir, 'bad.json')), /^Error: 读取 MCP 配置失败：/);
        assert.throws(() => loadMcpConfig(join(dir, 'bad.json')), (e: Error) => e.message.includes('bad.json:1:2：JSON 写坏了'));
        writeFileSync(join(dir, 'empty.json'), '{\n');
        assert.throws(() => loadMcpConfig(join(dir, 'empty.json')), (e: Error) => e.message.includes('empty.json:2:1：JSON 写坏了'));
        writeFileSync(join(dir, 'none.json'), '{"servers":{}}');
        assert.throws(() => loadMcpConfig(join(dir, 'none.json')), /读取 MCP 配置失败：/);
        mkdirSync(join(dir, 'isdir.json'));
        assert.throws(() => loadMcpConfig(join(dir, 'isdir.json')), /读取 MCP 配置失败：/);
    });

    it('坏条目只影响它自己', () => {
        const dir = tempDir();
        const file = join(dir, 'mcp.json');
        process.env.GEEKAGENT_T_DIR = '/tmp';
        writeFileSync(file, JSON.stringify({
            mcpServers: {
                ok: { command: 'node', args: ['${GEEKAGENT_T_DIR}/x.mjs', '${NOPE_T:-dflt}'], env: { A: '${GEEKAGENT_T_DIR}' }, cwd: 'sub', extra: 1 },
                nocmd: { args: [] },
                http: { url: 'http://localhost:1/mcp' },
                sse: { type: 'sse', command: 'x' },
                badargs: { command: 'x', args: 'a b' },
                badenv: { command: 'x', env: { A: 1 } },
                badtimeout: { command: 'x', timeout: 1.5 },
                unset: { command: 'x', args: ['${SURELY_UNSET_VAR}'] },
                notobj: 'node',
            },
        }));
        const entries = loadMcpConfig(file);
        assert.deepEqual(entries[0], {
            name: 'ok',
            config: { command: 'node', args: ['/tmp/x.mjs', 'dflt'], env: { A: '/tmp' }, cwd: resolve('sub'), timeout: 10000 },
        });
        const errors = Object.fromEntries(entries.slice(1).map((e) => [e.name, e.error]));
        assert.equal(errors.nocmd, '配置无效：缺少 command');
        assert.equal(errors.http, '配置无效：只支持 stdio 服务器');
        assert.equal(errors.sse, '配置无效：只支持 stdio 服务器');
        assert.match(errors.badargs!, /^配置无效：args/);
        assert.match(errors.badenv!, /^配置无效：env/);
        assert.match(errors.badtimeout!, /^配置无效：timeout/);
        assert.equal(errors.unset, '环境变量 SURELY_UNSET_VAR 未设置');
        assert.match(errors.notobj!, /^配置无效：/);
    });
});

describe('服务器死前的 stderr', () => {
    it('去掉 Node 报错的调用栈和收尾行，留下 Cannot find module', () => {
        const node = [
            'node:internal/modules/cjs/loader:1210', '  throw err;', '  ^', '',
            "Error: Cannot find module '/x/server.mjs'", '    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)',
            '    at node:internal/main/run_main_module:28:49 {', "  code: 'MODULE_NOT_FOUND',", '  requireStack: []', '}', '', 'Node.js v20.20.2',
        ];
        assert.deepEqual(meaningfulStderr(node), ["Error: Cannot find module '/x/server.mjs'"]);
        assert.deepEqual(meaningfulStderr(['启动中', '读取配置', '准备退出', '再见']), ['读取配置', '准备退出', '再见']);
        assert.deepEqual(meaningfulStderr([]), []);
        assert.deepEqual(meaningfulStderr(['Traceback (most recent call last):', '  File "s.py", line 1', "ModuleNotFoundError: No module named 'mcp'"]), ["ModuleNotFoundError: No module named 'mcp'"]);
    });
});

describe('工具名', () => {
    it('清洗、限长、去重；起好的名字记进 used', () => {
        const taken = new Set(['mcp_s_x_y']);
        const free = () => new Set<string>();
        assert.equal(mcpToolName('demo', 'word_count', free()), 'mcp_demo_word_count');
        assert.equal(mcpToolName('my.srv', 'read.file', free()), 'mcp_my_srv_read_file');
        assert.equal(mcpToolName('s', '中文🎲', free()), 'mcp_s____');
        const dup = mcpToolName('s', 'x.y', taken)!;
        assert.match(dup, /^mcp_s_x_y_[0-9a-f]{8}$/);
        assert.ok(taken.has(dup), '起好的名字记进 used');
        const long = mcpToolName('s', 'a'.repeat(80), free())!;
        assert.equal(long.length, 64);
        assert.match(long, /^mcp_s_a{49}_[0-9a-f]{8}$/);
        assert.equal(mcpToolName('s', 'x.y', taken), undefined);
    });
});

describe('输入模式规范化', () => {
    it('各种不规范写法', () => {
        const normalizeSchema = (schema: unknown, note: (text: string) => void = () => {}) => normalize(schema, note);
        assert.deepEqual(normalizeSchema(undefined), { type: 'object', properties: {} });
        assert.deepEqual(normalizeSchema(null), { type: 'object', properties: {} });
        assert.deepEqual(normalizeSchema({ type: 'object' }), { type: 'object', properties: {} });
        const original = { $schema: 'x', type: 'object', properties: { a: { type: 'string' }, t: true, f: false, bad: 3 }, required: ['a', 'zzz', 7, 'toString'] };
        const copy = structuredClone(original);
        assert.deepEqual(normalizeSchema(original), { type: 'object', properties: { a: { type: 'string' }, t: {}, f: {} }, required: ['a'] });
        assert.deepEqual(original, copy, '服务器的对象不能被修改');
        const notes: string[] = [];
        assert.deepEqual(normalizeSchema({ type: 'array' }, (n) => notes.push(n)), { type: 'object', properties: {} });
        assert.deepEqual(notes, ['不可用的输入模式']);
        assert.deepEqual(normalizeSchema({ type: ['object', 'null'], properties: { n: { type: ['boolean', 'string'] } } }),
            { type: 'object', properties: { n: { type: ['boolean', 'string'] } } });
    });
});

describe('结果转换', () => {
    it('各种内容块', () => {
        const c = (content: unknown[], extra = {}) => convertResult({ content, ...extra }).text;
        assert.equal(c([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]), 'a\nb');
        assert.equal(c([{ type: 'image', data: 'AAAA', mimeType: 'image/png' }]), '[图片 image/png，3 字节]');
        assert.equal(c([{ type: 'audio', data: 'AAAAAA==', mimeType: 'audio/wav' }]), '[音频 audio/wav，4 字节]');
        assert.equal(c([{ type: 'resource_link', uri: 'file:///x', name: 'x' }]), '[资源链接 x file:///x]');
        assert.equal(c([{ type: 'resource_link', uri: 'file:///x', name: 'x', mimeType: 'text/plain' }]), '[资源链接 x file:///x text/plain]');
        assert.equal(c([{ type: 'resource', resource: { uri: 'u', text: 't' } }]), '[资源 u]\nt');
        assert.equal(c([{ type: 'resource', resource: { uri: 'u', blob: 'AAA=', mimeType: 'a/b' } }]), '[资源 u a/b，2 字节]');
        assert.equal(c([{ type: 'hologram' }]), '[不支持的内容：hologram]');
        assert.equal(c([], { structuredContent: { a: 1 } }), '{"a":1}');
        assert.equal(c([{ type: 'text', text: 'T' }], { structuredContent: { a: 1 } }), 'T');
        assert.equal(c([]), '（无内容）');
        assert.equal(convertResult(undefined).text, '（无内容）');
        assert.deepEqual(convertResult({ content: [], isError: true }), { text: 'MCP 工具返回了错误', isError: true });
        const long = c([{ type: 'text', text: 'z'.repeat(25000) }]);
        assert.equal(long, 'z'.repeat(20000) + '\n…(已截断，共 25000 个字符)');
        assert.equal(truncateOutput('abc', 5), 'abc');
    });
});

describe('请求表', () => {
    // 要不要为放弃的请求发 notifications/cancelled（initialize 不发）是 MCP 的规矩，由客户端决定：
    // 经真实服务器的检查在 broken-servers.test.ts（slow-tool 收到取消，never-answers 只收到 initialize）
    it('id 从 1 递增；超时后告诉 onGiveUp；迟到的响应被丢弃；close 之后的请求立刻失败', async () => {
        const sent: any[] = [];
        const gaveUp: unknown[][] = [];
        const table = new RequestTable((m) => sent.push(m), (...args) => gaveUp.push(args));
        const init = table.request('initialize', {}, 30);
        const call = table.request('tools/call', { name: 'x' }, 30);
        assert.deepEqual(sent.map((m) => m.id), [1, 2]);
        await assert.rejects(init, /请求 initialize 超时（0.03 秒内没有响应）/);
        await assert.rejects(call, /请求 tools\/call 超时/);
        assert.deepEqual(gaveUp, [[1, 'initialize', 'timeout'], [2, 'tools/call', 'timeout']]);
        assert.equal(table.settle({ jsonrpc: '2.0', id: 2, result: {} }), false);
        const next = table.request('ping', {}, 1000);
        assert.equal(sent.at(-1).id, 3);
        assert.equal(table.settle({ id: '3', result: {} }), false, '字符串 id 不等于数字 id');
        assert.equal(table.settle({ result: { ok: 1 }, jsonrpc: '2.0', id: 3 }), true);
        assert.deepEqual(await next, { ok: 1 });
        const bad = table.request('tools/call', {}, 1000);
        table.settle({ id: 4, error: { code: -32602, message: 'Invalid params' } });
        await assert.rejects(bad, (e: unknown) => e instanceof RpcError && e.code === -32602 && e.message === 'MCP 错误 -32602：Invalid params');
        assert.equal(table.settle({ id: 5, method: 'ping' }), false, '没有 result 或 error 的不是响应');
        const pending = table.request('tools/call', {}, 1000);
        table.close(new Error('gone'));
        await assert.rejects(pending, /gone/);
        assert.equal(table.settle({ jsonrpc: '2.0', id: 5, result: {} }), false, 'close 之后表是空的');
        await assert.rejects(table.request('ping', {}, 1000), /gone/);
        assert.equal(sent.at(-1).id, 5, 'close 之后的请求不再发出');
    });

    it('signal 取消：不再等、告诉 onGiveUp；请求结束时摘掉监听（同一轮里调用再多也不堆积）', async () => {
        const gaveUp: unknown[][] = [];
        const sent: unknown[] = [];
        const table = new RequestTable((msg) => sent.push(msg), (...args) => gaveUp.push(args));
        const controller = new AbortController();
        const signal = controller.signal;
        for (let id = 1; id <= 20; id++) {
            const done = table.request('tools/call', {}, 1000, signal);
            assert.equal(getEventListeners(signal, 'abort').length, 1);
            table.settle({ id, result: id });
            assert.equal(await done, id);
        }
        assert.equal(getEventListeners(signal, 'abort').length, 0);
        const slow = table.request('tools/call', {}, 1000, signal);
        controller.abort();
        await assert.rejects(slow, /请求 tools\/call 已取消/);
        assert.deepEqual(gaveUp, [[21, 'tools/call', 'cancelled by user']]);
        await assert.rejects(table.request('ping', {}, 1000, signal), /请求 ping 已取消/, '已经取消的 signal：立刻失败');
        assert.equal(sent.length, 21, '已经取消的请求不发出');
        assert.equal(gaveUp.length, 1, '没发出的请求也不用通知对方取消');
    });
});

describe('状态文字', () => {
    it('没有服务器', () => {
        const m = new McpManager([], fakeRegistry());
        assert.equal(mcpPanelText(m), '无');
        assert.match(mcpStatusText(m), /没有已连接的 MCP 服务器/);
    });

    it('配置错误的服务器显示为失败', async () => {
        const m = new McpManager([{ name: 'bad', error: '配置无效：缺少 command' }], fakeRegistry());
        assert.equal(mcpPanelText(m), '等待信任回答');   // 还没开始连接：信任问题还没答（「连接中…」见 mcp-client.test.ts）
        await m.connectAll();
        assert.equal(mcpPanelText(m), 'bad(失败)');
        assert.equal(mcpStatusText(m), '× bad：配置无效：缺少 command');
        await assert.rejects(callMcpTool(serverOf(m, 'bad'), 'x', {}), /MCP 服务器 bad 未在运行：配置无效：缺少 command/);
    });
});
