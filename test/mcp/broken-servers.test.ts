// 故意写坏的服务器和一个正常的演示服务器放在同一份 mcp.json 里，
// 每种故障都要给出清楚的错误、不影响其他服务器、最后不留任何进程。握手从不回答的服务器在 handshake-timeout.test.ts。
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMcpConfig } from '../../hardened/mcp-config.ts';
import { McpManager, mcpPanelText, mcpStatusText, mcpStartupMessages } from '../../hardened/mcp-setup.ts';
import { buildMcpTools, callMcpTool, type McpToolSet } from '../../hardened/mcp-tools.ts';
import { setupPermissions } from '../../hardened/permissions.ts';
import type { Tool } from '../../hardened/tools.ts';
import { fakeRegistry, leftovers, readRecords, server, serverOf, tempDir, waitFor, SERVERS } from './util.ts';

const DEMO = fileURLToPath(new URL('../../hardened/demo-server.mjs', import.meta.url));
const MARK = randomUUID();
const dir = tempDir();
const logOf = (name: string) => join(dir, `${name}.log`);
const node = process.execPath;

function entry(name: string, script: string, extra: Record<string, unknown> = {}) {
    const { env = {}, ...rest } = extra as { env?: Record<string, string> };
    return [name, { command: node, args: [server(script)], env: { GEEKAGENT_TEST_MARK: MARK, MCP_TEST_LOG: logOf(name), ...env }, ...rest }];
}

const config = {
    mcpServers: Object.fromEntries([
        ['demo', { command: node, args: ['${GEEKAGENT_SURELY_UNSET_DIR:-' + dirname(DEMO) + '}/demo-server.mjs'], env: { GEEKAGENT_TEST_MARK: MARK } }],
        entry('crash', 'crash-on-start.mjs'),
        ['missing', { command: 'no-such-binary' }],
        ['unset', { command: node, args: ['${SURELY_UNSET_VAR}'] }],
        ['badcwd', { command: node, args: ['x'], cwd: join(dir, 'no-such-dir') }],
        entry('garbage', 'garbage.mjs'),
        entry('huge', 'huge.mjs'),
        entry('huge70', 'huge.mjs', { timeout: 2000 }),
        entry('reqfirst', 'requests-first.mjs'),
        entry('wrongver', 'wrong-version.mjs'),
        entry('slow', 'slow-tool.mjs', { timeout: 600, env: { SLOW_MS: '1500' } }),
        entry('slowok', 'slow-tool.mjs', { timeout: 3000, env: { SLOW_MS: '1500' } }),
        entry('stubborn', 'stubborn.mjs'),
        ['grand', { command: 'sh', args: ['-c', `"${node}" "${server('grandchild.mjs')}"; true`], env: { GEEKAGENT_TEST_MARK: MARK } }],
        entry('dies', 'dies-mid-call.mjs'),
        entry('names', 'odd-names.mjs'),
        entry('schemas', 'odd-schemas.mjs'),
        entry('zoo', 'content-zoo.mjs'),
        entry('pages', 'paginated.mjs'),
        entry('loop', 'paginated.mjs', { env: { REPEAT: '1' } }),
        entry('flood', 'stderr-flood.mjs'),
        entry('changed', 'list-changed.mjs'),
    ]),
};

describe('故障服务器', () => {
    let manager: McpManager;
    const registry = fakeRegistry(['read']);   // 一个「内置工具」占着名字 read 和一个名额
    // 不设名额时每台服务器的全部工具：odd-names 一台就有 156 个，这里要看全部（按配置顺序、共用一份已占用的名字，和管理器起名的方式相同）。
    // 128 个的上限见最后一个测试，经真实入口的检查在 test/stages/mcp-scale.test.ts
    let sets: Map<string, McpToolSet>;
    let tools: Tool[];
    const status = (name: string) => serverOf(manager, name);
    const logText = (name: string) => status(name).logs.map((l) => l.text).join('\n');
    const callTool = (name: string, tool: string, args: Record<string, unknown>) => callMcpTool(status(name), tool, args);
    const exposed = (name: string) => sets.get(name)!.exposed.map((e) => ({ name: e.tool.name, original: e.original }));
    setupPermissions({ root: process.cwd(), tools: {} }, async () => true);   // MCP 工具的确认一律答 y

    before(async () => {
        const file = join(dir, 'mcp.json');
        writeFileSync(file, JSON.stringify(config));
        manager = new McpManager(loadMcpConfig(file), registry);
        await manager.connectAll();
        const used = new Set(['read']);
        sets = new Map(manager.servers.map((s) => [s.name, buildMcpTools(s, used, () => true)]));
        tools = [...sets.values()].flatMap((set) => set.exposed.map((e) => e.tool));
    });
    after(() => manager.stopAll());

    it('配置问题只影响各自的服务器', () => {
        assert.equal(status('demo').status, 'connected', status('demo').error);
        // 找不到命令、启动就退出：原因后面跟一句查哪里的提示
        const hint = (name: string) => `。提示：检查 .geekagent/mcp.json 里 ${name} 的 command 和 args，相对路径从启动 Agent 的文件夹 ${process.cwd()} 算起`;
        assert.equal(status('missing').error, `找不到命令：no-such-binary${hint('missing')}`);
        assert.equal(status('unset').error, '环境变量 SURELY_UNSET_VAR 未设置');
        assert.equal(status('badcwd').error, `找不到工作目录：${join(dir, 'no-such-dir')}`);
        const lines = mcpStartupMessages(manager);
        assert.ok(lines.includes(`MCP 服务器 missing 启动失败：找不到命令：no-such-binary${hint('missing')}`));
    });

    it('crash-on-start：退出码 1，stderr 尾巴可见', () => {
        const s = status('crash');
        assert.equal(s.status, 'failed');
        assert.match(s.error, /^服务器进程已退出（退出码 1）；stderr：crash-on-start：找不到配置文件，退出。提示：检查 \.geekagent\/mcp\.json 里 crash 的 command 和 args/);
        assert.match(mcpStatusText(manager), /× crash：服务器进程已退出（退出码 1）[^\n]*\n {4}crash-on-start：找不到配置文件，退出/);
        assert.match(mcpPanelText(manager), /crash\(失败\)/);
    });

    it('garbage：噪声被忽略并记录，调用照常', async () => {
        assert.equal(status('garbage').status, 'connected', status('garbage').error);
        assert.equal(await callTool('garbage', 'echo', { text: '你好' }), 'echo:你好');
        const log = logText('garbage');
        assert.match(log, /忽略非 JSON 输出：Garbage server v1 starting/);
        assert.match(log, /忽略非 JSON 输出：\{"jsonrpc":"2.0","id":/);
        assert.match(log, /忽略没有对应请求的响应（id 999）/);
        // 认不出的消息记原样的那一行，不重新序列化（十万层的 [[[…]]] 重新序列化会撑爆调用栈）
        assert.match(log, /忽略无法识别的消息：\[1,2\]/);
        assert.match(log, /忽略无法识别的消息：\{"jsonrpc":"2.0","id":null,"method":"odd"\}/);
        assert.match(log, /\[info\] 批量里的通知/);
        assert.match(log, /\[debug\] ping 回答：\{\}/);
    });

    it('huge：20 MB 的行被截断显示', async () => {
        const big = await callTool('huge', 'big20', {});
        assert.equal(big.length, 20000 + '\n…(已截断，共 20000000 个字符)'.length);
        assert.ok(big.endsWith('\n…(已截断，共 20000000 个字符)'));
        assert.equal(await callTool('huge', 'small', {}), 'small ok');
    });

    it('huge：70 MB 的行被丢弃，请求超时并发出取消，连接保持可用', async () => {
        await assert.rejects(callTool('huge70', 'big70', {}), /请求 tools\/call 超时（2 秒内没有响应）/);
        // 机器繁忙时超时可能早于整行传完：等丢弃的记录出现
        assert.ok(await waitFor(() => /丢弃了一行超长输出（700000\d\d 字节）/.test(logText('huge70')), 20000), logText('huge70'));
        assert.equal(await callTool('huge70', 'small', {}), 'small ok');
        const recs = readRecords(logOf('huge70'));
        const big70 = recs.find((r) => r.msg?.params?.name === 'big70')!.msg.id;
        assert.ok(recs.some((r) => r.cancelled === big70), '服务器应收到 notifications/cancelled');
    });

    it('requests-first：握手前的 roots/list 与 ping 按形状回答', async () => {
        assert.equal(status('reqfirst').status, 'connected', status('reqfirst').error);
        assert.ok(readRecords(logOf('reqfirst')).some((r) => r.checked === true));
        assert.match(logText('reqfirst'), /\[info\] 握手前的日志/);
    });

    it('wrong-version：版本不支持，服务器被停掉', () => {
        assert.equal(status('wrongver').error, '不支持的协议版本 1999-01-01（支持：2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05）');
        assert.deepEqual(leftovers('wrong-version.mjs', MARK), []);
    });

    it('slow-tool：超时后发送取消；放宽 timeout 就能成功', async () => {
        const [short, long] = await Promise.allSettled([
            callTool('slow', 'slow', {}), callTool('slowok', 'slow', {}),
        ]);
        assert.equal(short.status, 'rejected');
        assert.match(String((short as PromiseRejectedResult).reason), /请求 tools\/call 超时（0.6 秒内没有响应）/);
        assert.deepEqual(long, { status: 'fulfilled', value: 'slow done' });
        const recs = readRecords(logOf('slow'));
        const id = recs.find((r) => r.msg?.method === 'tools/call')!.msg.id;
        assert.ok(recs.some((r) => r.cancelled === id && r.reason === 'timeout'));
    });

    it('dies-mid-call：挂起的调用立即失败，之后的调用提示未在运行', async () => {
        const t0 = Date.now();
        // 运行中才死的不是配置写错了：没有「检查 command 和 args」的提示
        await assert.rejects(callTool('dies', 'die', {}), /服务器进程已退出（退出码 3）；stderr：dies-mid-call：要崩溃了$/);
        assert.ok(Date.now() - t0 < 1000);
        assert.equal(status('dies').status, 'exited');
        await assert.rejects(callTool('dies', 'die', {}), /^Error: MCP 服务器 dies 未在运行：服务器进程已退出（退出码 3）$/);
        assert.match(mcpPanelText(manager), /dies\(已退出\)/);
    });

    it('odd-names：清洗、≤ 64、唯一，调用用原名', async () => {
        const mine = tools.filter((t) => t.name.startsWith('mcp_names_'));
        assert.equal(mine.length, 156);
        assert.equal(new Set(tools.map((t) => t.name)).size, tools.length);
        assert.ok(tools.every((t) => /^[a-zA-Z0-9_-]{1,64}$/.test(t.name)));
        for (const original of ['read.file', 'a/b', 'a'.repeat(80), 'x.y', 'x_y', '中文名']) {
            const entry = exposed('names').find((e) => e.original === original)!;
            const tool = tools.find((t) => t.name === entry.name)!;
            assert.equal(await tool.run({}), `原名：${original}`);
        }
        assert.equal(exposed('names').find((e) => e.original === 'x.y')!.name, 'mcp_names_x_y');
        assert.match(exposed('names').find((e) => e.original === 'x_y')!.name, /^mcp_names_x_y_[0-9a-f]{8}$/);
        assert.match(mcpStatusText(manager), /mcp_names_a_b ← a\/b/, '装进名额的部分，/mcp 里注明原名');
    });

    it('odd-schemas：全部规范成带 properties 的 object', () => {
        const mine = tools.filter((t) => t.name.startsWith('mcp_schemas_'));
        assert.equal(mine.length, 7);
        for (const t of mine) {
            assert.equal(t.parameters.type, 'object');
            assert.equal(typeof t.parameters.properties, 'object');
            assert.equal(t.parameters.$schema, undefined);
        }
        const by = (n: string) => mine.find((t) => t.name === `mcp_schemas_${n}`)!.parameters;
        assert.deepEqual(by('with_dollar').required, ['a']);
        assert.deepEqual(Object.keys(by('odd_props').properties as object), ['ok', 'yes', 'no']);
        assert.match(logText('schemas'), /root_array：不可用的输入模式/);
    });

    it('content-zoo：各种内容块的文字', async () => {
        const call = (n: string) => callTool('zoo', n, {});
        assert.equal(await call('image'), '一张图：\n[图片 image/png，68 字节]');
        assert.equal(await call('audio'), '[音频 audio/wav，10 字节]');
        assert.equal(await call('link'), '[资源链接 a.txt file:///a.txt text/plain]');
        assert.equal(await call('res_text'), '[资源 mem://note]\n资源正文');
        assert.equal(await call('res_blob'), '[资源 mem://bin application/octet-stream，5 字节]');
        assert.equal(await call('structured'), '{"answer":42}');
        assert.equal(await call('text_and_structured'), '文本优先');
        assert.equal(await call('empty'), '（无内容）');
        assert.equal(await call('unknown'), '[不支持的内容：hologram]');
        assert.ok((await call('long')).endsWith('\n…(已截断，共 30000 个字符)'));
        await assert.rejects(call('error'), /^Error: 出错了：参数不对$/);
        await assert.rejects(call('error_empty'), /^Error: MCP 工具返回了错误$/);
    });

    it('pagination：三页全收；重复游标时停下并记录', () => {
        assert.deepEqual(status('pages').tools.map((t) => t.name), ['p1_a', 'p1_b', 'p2_a', 'p3_a', 'p3_b']);
        const cursors = readRecords(logOf('pages')).filter((r) => r.msg.method === 'tools/list').map((r) => r.msg.params);
        assert.deepEqual(cursors, [{}, { cursor: 'page-2' }, { cursor: 'page-3' }]);
        assert.equal(status('loop').status, 'connected');
        assert.deepEqual(status('loop').tools.map((t) => t.name), ['loop_start', 'loop_same']);
        assert.match(logText('loop'), /分页游标重复/);
    });

    it('stderr-flood：服务器没被卡住，只保留最后 50 行', async () => {
        const s = status('flood');
        assert.equal(s.status, 'connected');
        assert.equal(s.logs.length, 50);
        assert.match(s.logs.at(-1)!.text, /^flood line 10000 /);
        assert.match(mcpStatusText(manager), /flood line 9996[^\n]*\n[^\n]*flood line 9997/);
    });

    it('list_changed：只记一条日志', () => {
        assert.equal(status('changed').status, 'connected');
        assert.equal(status('changed').tools.length, 1);
        assert.match(logText('changed'), /工具列表已变化/);
    });

    it('名额：只剩 127 个时按配置顺序装满，odd-names 装不下的部分点名提示', () => {
        const fitted = manager.refresh();
        assert.equal(fitted.length, 127);
        assert.deepEqual(fitted.slice(0, 2), ['mcp_demo_word_count', 'mcp_demo_dice']);
        assert.deepEqual(registry.names(), ['read', ...fitted], '注册表里正好是内置的一个加上装下的 127 个');
        const left = manager.leftOut();
        assert.deepEqual(left.map((l) => l.server), ['names', 'schemas', 'zoo', 'pages', 'loop', 'flood', 'changed']);
        const names = left[0];
        assert.equal(names.total, 156);
        assert.equal(manager.toolsOf('names').exposed.length, 156 - names.count);
        const notice = mcpStartupMessages(manager).at(-1)!;
        assert.match(notice, /^工具超过一次请求 128 个的上限（内置 1 个，.*names 的 \d+ 个（共 156 个）、schemas 的全部 7 个.*includeTools.*excludeTools/);
        assert.match(mcpStatusText(manager), /names（\d+ 个工具）\n(?: {2}.*\n)* {2}（另有 \d+ 个超出 128 个的上限，没有交给模型）\n/);
    });

    it('演示服务器一直正常；全部停止后不留进程（顽固的要 SIGKILL）', async () => {
        assert.match(await callTool('demo', 'word_count', { text: 'Model Context Protocol' }), /22.*3/);
        const stubbornPid = readRecords(logOf('stubborn'))[0].pid as number;   // 直接由 node 启动，pid 就是进程组号
        const t0 = Date.now();
        await manager.stopAll();
        const ms = Date.now() - t0;
        assert.ok(ms >= 3900 && ms < 6000, `stopAll 用了 ${ms} ms`);   // 2 秒 + 2 秒 + SIGKILL；上限留出机器繁忙时的余量
        assert.match(logText('stubborn'), /收到 SIGTERM，不理会/);
        assert.throws(() => process.kill(-stubbornPid, 0), { code: 'ESRCH' });
        assert.deepEqual(leftovers(SERVERS, MARK), []);
        assert.deepEqual(leftovers('demo-server.mjs', MARK), []);
    });
});
