// Day 15 的 MCP 接入：经真实入口、管道输入（行模式）、假 OpenAI 服务验证。
// 临时工作目录的 .geekagent/mcp.json 用绝对路径指向仓库里的演示服务器；故障服务器复用 test/mcp/servers 里的脚本。
// 客户端模块本身的细节（分帧、超时、内容转换……）已由 test/mcp/ 覆盖，这里只看 Agent 里用户能看到的行为。
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { FakeReply, FakeToolCall } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI, type FakeServer } from '../../scripts/fake-model/server.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { HARDENED_ONLY, REPO_ROOT, runStage, type RunStageOptions } from '../helpers/run-stage.ts';
import { leftovers, readRecords, server, tempDir, waitFor } from '../mcp/util.ts';

// 教程里的那句话；词组正好 22 个字符、3 个词
const TUTORIAL = '掷一次骰子，再统计「Model Context Protocol」这个词组的字符数和词数';
const PHRASE = 'Model Context Protocol';
const SECRET = 'abcd1234efgh';
// 本文件启动的每个 MCP 服务器都带着这个标记：只找自己留下的进程，不受并行运行的其他测试影响
const MARK = randomUUID();
const marked = { GEEKAGENT_TEST_MARK: MARK };
// 临时目录自己的 mcp.json 要启动服务器：启动时先问是否信任这个文件夹，每次运行的第一行输入回答它
const TRUST = 'y';

const call = (id: string, name: string, args: object = {}): FakeToolCall => ({ id, name, arguments: JSON.stringify(args) });
const tools = (...calls: FakeToolCall[]): FakeReply => ({ kind: 'tools', calls });
const text = (t: string): FakeReply => ({ kind: 'text', text: t });
const count = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

/** 所有请求里 tool 消息的内容，按 tool_call_id 索引。 */
function toolResults(fake: FakeServer): Record<string, string> {
    const out: Record<string, string> = {};
    for (const req of fake.requests) {
        for (const m of req.body.messages ?? []) if (m.role === 'tool') out[m.tool_call_id] = m.content;
    }
    return out;
}

/** 临时工作目录：写好 mcp.json，需要时再写权限表（root 为 ..，即工作目录本身）。 */
function workdir(servers: Record<string, unknown>, policies?: Record<string, string>): string {
    const cwd = fs.realpathSync(tempDir('geekagent-mcp-agent-'));
    fs.mkdirSync(path.join(cwd, '.geekagent'));
    fs.writeFileSync(path.join(cwd, '.geekagent', 'mcp.json'), JSON.stringify({ mcpServers: servers }, null, 2));
    if (policies) fs.writeFileSync(path.join(cwd, '.geekagent', 'GeekAgent.json'), JSON.stringify({ root: '..', tools: policies }, null, 2));
    return cwd;
}

/** 退出之后，带本文件标记的进程（服务器、sh、tee）一个都不能剩。 */
function assertNoLeftovers(): void {
    assert.deepEqual(leftovers('', MARK), [], '退出后还有 MCP 服务器进程');
}

for (const stage of HARDENED_ONLY) {
    const DEMO = path.join(REPO_ROOT, stage, 'demo-server.mjs');
    const demo = { command: 'node', args: [DEMO], env: marked };
    // 在演示服务器前面加一个 tee：客户端发给服务器的每一行都记进 log，用来证明某个请求根本没发出去
    const spiedDemo = (log: string) => ({
        command: 'sh',
        args: ['-c', `tee -a "${log}" | exec node "${DEMO}"`],
        env: marked,
    });

    /** 每次运行一个新的假服务：回复队列互不干扰，请求记录只属于这一次。 */
    async function run(cwd: string, input: string[], replies: FakeReply[], extra: Partial<RunStageOptions> = {}) {
        const fake = await startFakeOpenAI({ replies });
        try {
            const r = await runStage(stage, { ...extra, input, cwd, env: { OPENAI_BASE_URL: fake.url, ...extra.env } });
            assertNoRejections(fake);
            return { ...r, fake, results: toolResults(fake) };
        } finally {
            await fake.close();
        }
    }

    describe(`${stage}: MCP 演示服务器接入 Agent`, () => {
        test('/mcp 列出 demo 的两个工具；第一次请求就带上它们（名字合法、参数模式是 object）', async () => {
            // 服务器在后台连接，第一次请求前才等它：/mcp 放在这一轮之后，才看得到连好的工具
            const r = await run(workdir({ demo }), [TRUST, '你好', '/mcp'], [text('你好！')]);
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /demo（2 个工具）\n {2}mcp_demo_word_count\n {2}mcp_demo_dice\n/);
            assert.match(r.stdout, /geekagent-demo started/, '/mcp 里应该有服务器 stderr 的最后几行');
            assert.match(r.stderr, /^\[mcp:demo\] geekagent-demo started$/m, '行模式把服务器的 stderr 回显成 [mcp:NAME] line');
            const first = r.fake.requests[0].body;
            const mcpTools = first.tools.filter((t: any) => t.function.name.startsWith('mcp_'));
            assert.deepEqual(mcpTools.map((t: any) => t.function.name), ['mcp_demo_word_count', 'mcp_demo_dice']);
            for (const t of mcpTools) {
                assert.match(t.function.name, /^[a-zA-Z0-9_-]{1,64}$/);
                assert.equal(t.function.parameters.type, 'object');
                assert.match(t.function.description, /^\[MCP:demo\] /);
            }
            assert.deepEqual(mcpTools[0].function.parameters.required, ['text']);
            assertNoLeftovers();
        });

        test('教程的检验：一轮里调用骰子和字数统计，两次确认都答 y → 22 个字符、3 个词、1–6 点', async () => {
            const r = await run(workdir({ demo }), [TRUST, TUTORIAL, 'y', 'y'], [
                tools(call('call_dice', 'mcp_demo_dice'), call('call_wc', 'mcp_demo_word_count', { text: PHRASE })),
                text('掷出的点数和统计结果都在上面。'),
            ]);
            assert.equal(r.code, 0, r.stderr);
            assert.equal(count(r.stdout, '即将调用 MCP 工具：'), 2);
            assert.match(r.stdout, /即将调用 MCP 工具：mcp_demo_dice（来自服务器 demo）\n服务器声明：只读\n参数：无\n确认执行？/);
            assert.match(r.stdout, /即将调用 MCP 工具：mcp_demo_word_count（来自服务器 demo）\n服务器声明：只读\n参数：\n {2}text："Model Context Protocol"\n确认执行？/);
            assert.match(r.results.call_dice, /^点数：[1-6]$/);
            assert.equal(r.results.call_wc, '字符数 22，词数 3');
            assert.equal(r.fake.requests.length, 2);
            assert.match(r.stdout, /调用工具 mcp_demo_word_count → 字符数 22，词数 3/);
            assert.match(r.stdout, /bye\n$/);
            assertNoLeftovers();
        });

        test('两轮各调一个：骰子答 n → 调用已取消，服务器根本没收到 tools/call；字数统计答 y 照常', async () => {
            const log = path.join(tempDir('geekagent-mcp-spy-'), 'sent.log');
            const r = await run(workdir({ demo: spiedDemo(log) }), [TRUST, TUTORIAL, 'n', 'y'], [
                tools(call('call_dice', 'mcp_demo_dice')),
                tools(call('call_wc', 'mcp_demo_word_count', { text: PHRASE })),
                text('骰子没掷；字数统计好了。'),
            ]);
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.call_dice, '调用已取消');
            assert.equal(r.results.call_wc, '字符数 22，词数 3');
            assert.match(r.stdout, /调用工具 mcp_demo_dice → 调用已取消/);
            const calls = fs.readFileSync(log, 'utf8').split('\n').filter((l) => l.includes('"tools/call"'));
            assert.equal(calls.length, 1, '答 n 的那次不应该发出 tools/call');
            assert.match(calls[0], /"name":"word_count"/);
            assertNoLeftovers();
        });

        test('GeekAgent.json 里 "mcp_demo_dice": "allow"：骰子不再询问，字数统计仍然询问', async () => {
            const r = await run(workdir({ demo }, { mcp_demo_dice: 'allow' }), [TRUST, TUTORIAL, 'y'], [
                tools(call('call_dice', 'mcp_demo_dice'), call('call_wc', 'mcp_demo_word_count', { text: PHRASE })),
                text('好了。'),
            ]);
            assert.equal(r.code, 0, r.stderr);
            assert.equal(count(r.stdout, '即将调用 MCP 工具：'), 1);
            assert.doesNotMatch(r.stdout, /即将调用 MCP 工具：mcp_demo_dice/);
            assert.match(r.results.call_dice, /^点数：[1-6]$/);
            assert.equal(r.results.call_wc, '字符数 22，词数 3');
            assertNoLeftovers();
        });

        test('前缀规则 "mcp_demo_*": "deny"：两个调用都被拒绝，不询问，服务器收不到 tools/call', async () => {
            const log = path.join(tempDir('geekagent-mcp-spy-'), 'sent.log');
            const cwd = workdir({ demo: spiedDemo(log) }, { 'mcp_demo_*': 'deny' });
            const r = await run(cwd, [TRUST, TUTORIAL], [
                tools(call('call_dice', 'mcp_demo_dice'), call('call_wc', 'mcp_demo_word_count', { text: PHRASE })),
                text('两个工具都被拒绝了。'),
            ]);
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.call_dice, '权限拒绝：不允许使用工具 mcp_demo_dice');
            assert.equal(r.results.call_wc, '权限拒绝：不允许使用工具 mcp_demo_word_count');
            assert.doesNotMatch(r.stdout, /即将调用 MCP 工具|点数：|字符数 /);
            assert.equal(count(r.stdout, '[y/N]'), 1, '只有启动时的信任问题');
            const sent = fs.readFileSync(log, 'utf8');
            assert.match(sent, /"tools\/list"/, 'spy 应该至少看到握手和 tools/list');
            assert.doesNotMatch(sent, /"tools\/call"/);
            // 前缀规则覆盖了默认的 ask：权限表里不应被补上逐个工具的条目（文件本身也不被改写）
            const saved = JSON.parse(fs.readFileSync(path.join(cwd, '.geekagent', 'GeekAgent.json'), 'utf8'));
            assert.deepEqual(saved.tools, { 'mcp_demo_*': 'deny' });
            assertNoLeftovers();
        });
    });

    describe(`${stage}: 故障服务器与配置错误`, () => {
        test('演示服务器旁边放三台坏的：启动即崩溃、命令不存在、变量未设置；Agent 照常启动，demo 照常可用', async () => {
            const cwd = workdir({
                demo,
                crash: { command: 'node', args: [server('crash-on-start.mjs')], env: marked },
                missing: { command: 'no-such-binary', env: marked },
                unset: { command: 'node', args: ['${SURELY_UNSET_VAR}'], env: marked },
            });
            const r = await run(cwd, [TRUST, TUTORIAL, 'y', 'y', '/mcp'], [
                tools(call('call_dice', 'mcp_demo_dice'), call('call_wc', 'mcp_demo_word_count', { text: PHRASE })),
                text('好了。'),
            ]);
            assert.equal(r.code, 0, r.stderr);
            // 启动时每台失败的服务器一行（行模式写到 stderr）；启动时就退出的、找不到命令的，再加一句查哪里的提示
            const hint = (name: string) => `。提示：检查 \\.geekagent/mcp\\.json 里 ${name} 的 command 和 args，相对路径从启动 Agent 的文件夹 ${cwd} 算起$`;
            assert.match(r.stderr, new RegExp(`^MCP 服务器 crash 启动失败：服务器进程已退出（退出码 1）；stderr：crash-on-start：找不到配置文件，退出${hint('crash')}`, 'm'));
            assert.match(r.stderr, new RegExp(`^MCP 服务器 missing 启动失败：找不到命令：no-such-binary${hint('missing')}`, 'm'));
            assert.match(r.stderr, /^MCP 服务器 unset 启动失败：环境变量 SURELY_UNSET_VAR 未设置$/m);
            // 崩溃服务器自己写的 stderr：不逐行回显成 [mcp:crash]（它只出现在启动失败那一行里），留在 /mcp 的最后几行里
            assert.doesNotMatch(r.stderr, /^\[mcp:(crash|missing|unset)\]/m);
            assert.match(r.stdout, /demo（2 个工具）\n {2}mcp_demo_word_count\n {2}mcp_demo_dice\n/);
            assert.match(r.stdout, /× crash：服务器进程已退出（退出码 1）.*\n(?: {4}.*\n)* {4}crash-on-start：找不到配置文件，退出\n/);
            assert.match(r.stdout, /× missing：找不到命令：no-such-binary。提示：[^\n]*\n/);
            assert.match(r.stdout, /× unset：环境变量 SURELY_UNSET_VAR 未设置\n/);
            // 失败的服务器没有工具交给模型；demo 的两个工具照常工作
            const names = r.fake.requests[0].body.tools.map((t: any) => t.function.name).filter((n: string) => n.startsWith('mcp_'));
            assert.deepEqual(names, ['mcp_demo_word_count', 'mcp_demo_dice']);
            assert.match(r.results.call_dice, /^点数：[1-6]$/);
            assert.equal(r.results.call_wc, '字符数 22，词数 3');
            assertNoLeftovers();
        });

        test('/mcp reconnect demo 重启服务器并报告新状态；之后工具照常可用；未知名字和失败的服务器给出清楚的信息', async () => {
            const cwd = workdir({ demo, crash: { command: 'node', args: [server('crash-on-start.mjs')], env: marked } });
            const r = await run(cwd, [TRUST, '/mcp reconnect demo', '/mcp reconnect nope', '/mcp reconnect crash', '/mcp reconnect', TUTORIAL, 'y'], [
                tools(call('call_wc', 'mcp_demo_word_count', { text: PHRASE })),
                text('好了。'),
            ]);
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /^demo 已重新连接（2 个工具）$/m);
            assert.equal(count(r.stderr, '[mcp:demo] geekagent-demo started'), 2, '重连应该真的启动了一个新进程');
            assert.match(r.stderr, /没有名为 nope 的 MCP 服务器/);
            assert.match(r.stdout, /^crash 重连失败：服务器进程已退出（退出码 1）/m);
            assert.match(r.stdout, /用法：\/mcp \[reconnect <name>\]/);
            // 重连后工具重新注册：既没有「已经注册过了」的错误，也没有重复的工具名（假服务会拒绝重复名）
            const names = r.fake.requests[0].body.tools.map((t: any) => t.function.name).filter((n: string) => n.startsWith('mcp_'));
            assert.deepEqual(names, ['mcp_demo_word_count', 'mcp_demo_dice']);
            assert.equal(r.results.call_wc, '字符数 22，词数 3');
            assertNoLeftovers();
        });

        test('mcp.json 不是合法 JSON、或没有 mcpServers 对象：说清文件和行:列，agent 不接 MCP 照常运行', async () => {
            const trailingComma = '{\n  "mcpServers": {\n    "demo": { "command": "node", },\n  }\n}\n';
            for (const [content, why] of [
                [trailingComma, /读取 MCP 配置失败：\.geekagent\/mcp\.json:3:34：JSON 写坏了（最后一项后面多了逗号）/],
                ['{ 不是 JSON', /读取 MCP 配置失败：\.geekagent\/mcp\.json:1:3：JSON 写坏了/],
                ['{"servers": {}}', /读取 MCP 配置失败：缺少 mcpServers 对象；本次不启动 MCP 服务器/],
            ] as const) {
                const cwd = workdir({});
                fs.writeFileSync(path.join(cwd, '.geekagent', 'mcp.json'), content);
                const r = await run(cwd, ['你好', '/mcp'], [text('你好！')]);
                assert.equal(r.code, 0, r.stdout + r.stderr);
                assert.match(r.stderr, why);
                assert.doesNotMatch(r.stderr, /Expected|position/, '不要 V8 的英文原话');
                assert.match(r.stdout, why, '/mcp 里也说明原因');
                assert.equal(r.fake.requests.length, 1);
                assert.match(r.stdout, /你好！/);
                assert.match(r.stdout, /bye/);
            }
        });

        test('服务器启动就失败（脚本路径写错）：屏幕上只有一行——Cannot find module 和一句提示；调用栈只在 /mcp 的日志和追踪里', async () => {
            // 相对路径：从启动 Agent 的文件夹算起，那里没有这个文件。服务器在后台连接，第一次请求模型前会等它们，所以 /mcp 放在第一轮之后
            const cwd = workdir({ typo: { command: 'node', args: ['servers/no-such-server.mjs'], env: marked } });
            const r = await run(cwd, [TRUST, '你好', '/mcp'], [text('你好！')], { env: { GEEKAGENT_TRACE: 'mcp' } });
            assert.equal(r.code, 0, r.stderr);
            const missing = path.join(cwd, 'servers', 'no-such-server.mjs').replace(/[.]/g, '\\.');
            const start = new RegExp(`^MCP 服务器 typo 启动失败：服务器进程已退出（退出码 1）；stderr：Error: Cannot find module '${missing}'`
                + `。提示：检查 \\.geekagent/mcp\\.json 里 typo 的 command 和 args，相对路径从启动 Agent 的文件夹 ${cwd} 算起$`, 'm');
            assert.match(r.stderr, start);
            assert.equal(r.stderr.split('\n').filter((l) => l.includes('typo')).length, 1, `屏幕上关于 typo 只有一行：\n${r.stderr}`);
            assert.doesNotMatch(r.stdout + r.stderr, /^\s+at |requireStack|Node\.js v\d|^\s*throw err;$/m, '屏幕上没有 Node 的调用栈');
            // /mcp：失败原因，和日志里有意义的几行（不是 requireStack: []、}、Node.js v20 这些收尾行）
            const status = /× typo：[^]*?(?=\nYou › |\n（退出前)/.exec(r.stdout)?.[0] ?? '';
            assert.match(status, /^× typo：服务器进程已退出（退出码 1）；stderr：Error: Cannot find module .*。提示：/);
            assert.match(status, /\n {4}Error: Cannot find module /);
            assert.match(status, /\n {4}客户端：服务器进程已退出（退出码 1）$/);
            assert.doesNotMatch(status, /requireStack|Node\.js v|^ {4}\}$|^ {4}\s+at /m, status);
            // 完整的 stderr（连同调用栈）在协议追踪里
            const trace = fs.readFileSync(path.join(cwd, '.geekagent', 'trace.log'), 'utf8');
            assert.match(trace, / mcp typo · stderr：Error: Cannot find module /);
            assert.match(trace, / mcp typo · stderr：\s+requireStack: \[\]/);
            assertNoLeftovers();
        });

        test('生成的 GeekAgent.json 列出发现的 MCP 工具（ask），读者改一个为 allow 后不再询问；已有条目不被改写', async () => {
            const cwd = workdir({ demo });
            const r = await run(cwd, [TRUST, '你好', '/mcp'], [text('你好！')]);
            assert.equal(r.code, 0, r.stderr);
            const file = path.join(cwd, '.geekagent', 'GeekAgent.json');
            const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
            assert.equal(saved.tools.mcp_demo_word_count, 'ask');
            assert.equal(saved.tools.mcp_demo_dice, 'ask');
            assert.equal(saved.tools.run_shell, 'ask', '内置工具的默认条目还在');
            saved.tools.mcp_demo_dice = 'allow';
            fs.writeFileSync(file, JSON.stringify(saved, null, 2));
            // 每次运行都是新的临时 HOME，而且放行了一个工具，信任问题会再问一次
            const again = await run(cwd, [TRUST, '掷一次骰子'], [tools(call('call_dice', 'mcp_demo_dice')), text('好了。')]);
            assert.equal(again.code, 0, again.stderr);
            assert.doesNotMatch(again.stdout, /即将调用 MCP 工具/);
            assert.match(again.results.call_dice, /^点数：[1-6]$/);
            assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).tools.mcp_demo_dice, 'allow');
            assertNoLeftovers();
        });
    });

    describe(`${stage}: 退出与密钥`, () => {
        test('空闲时收到 SIGTERM：停掉所有服务器，保存后打印 bye，退出码 0', async () => {
            const cwd = workdir({ demo, crash: { command: 'node', args: [server('crash-on-start.mjs')], env: marked } });
            let sent = false;
            let runningBefore = 0;
            const r = await run(cwd, [TRUST, '/mcp'], [], {
                onSpawn: (child) => {
                    // 管道一直不关（不发 EOF）：agent 处理完 /mcp 就停在等下一行的空闲状态，退出只能来自信号
                    Object.assign(child.stdin!, { end: () => child.stdin });
                    // 服务器在后台连接，/mcp 立刻回答（可能还是「连接中…」）：等 /mcp 答完、demo 进程已经起来再发信号
                    let seen = '';
                    let errors = '';
                    child.stdout!.on('data', (chunk: Buffer) => (seen += chunk.toString('utf8')));
                    child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
                    const ready = () => seen.includes('You › /mcp\n') && errors.includes('[mcp:demo] geekagent-demo started');
                    void waitFor(ready, 20_000).then(() => {
                        if (!sent) {
                            sent = true;
                            runningBefore = leftovers(DEMO, MARK).length;
                            child.kill('SIGTERM');
                        }
                    });
                },
            });
            assert.ok(sent, r.stdout + r.stderr);
            // 信号到达时服务器确实在运行，之后的「没有残留」才有意义
            assert.equal(runningBefore, 1);
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.signal, null);
            assert.match(r.stdout, /（退出前已保存 1 个对话到 .*sessions\.json）\nbye\n$/);
            assertNoLeftovers();
        });

        test('MCP 调用进行中收到 SIGTERM：服务器立即被停掉，这一轮随之结束并回滚，不用等请求超时', async () => {
            // slow-tool 要 15 秒才回答，timeout 设成 60 秒：退出如果等这一轮自然结束，至少要 15 秒
            const log = path.join(tempDir('geekagent-mcp-slow-'), 'received.log');
            const cwd = workdir({ slow: { command: 'node', args: [server('slow-tool.mjs')], env: { ...marked, MCP_TEST_LOG: log }, timeout: 60_000 } });
            let signalledAt = 0;
            const r = await run(cwd, [TRUST, '跑一下慢工具', 'y'], [tools(call('call_slow', 'mcp_slow_slow')), text('不该走到这里。')], {
                onSpawn: (child) => {
                    Object.assign(child.stdin!, { end: () => child.stdin });
                    // 服务器记下 tools/call 时，调用确实在等响应
                    void waitFor(() => readRecords(log).some((e) => e.msg?.method === 'tools/call'), 20_000).then(() => {
                        signalledAt = Date.now();
                        child.kill('SIGTERM');
                    });
                },
            });
            const took = Date.now() - signalledAt;
            assert.ok(signalledAt > 0, r.stdout + r.stderr);
            assert.equal(r.code, 0, r.stderr);
            assert.ok(took < 8000, `SIGTERM 之后 ${took} ms 才退出`);
            assert.match(r.stdout, /（已中断，本轮已撤销）/);
            assert.match(r.stdout, /bye\n$/);
            assert.equal(r.fake.requests.length, 1, '被中断的工具结果不应再发给模型');
            assertNoLeftovers();
        });

        test('密钥样的环境变量不传给服务器：env-dump 的输出和所有请求里都没有 MY_SECRET_TOKEN 的值', async () => {
            const cwd = workdir({
                demo,
                // 配置里显式传进去的密钥服务器能看到；交给模型之前仍然被脱敏
                envdump: { command: 'node', args: [server('env-dump.mjs')], env: { ...marked, PASSED_TOKEN: '${MY_SECRET_TOKEN}' } },
            }, { 'mcp_envdump_*': 'allow' });
            const r = await run(cwd, [TRUST, '把服务器的环境变量列出来'], [
                tools(call('call_env', 'mcp_envdump_env')),
                text('列好了。'),
            ], { env: { MY_SECRET_TOKEN: SECRET } });
            assert.equal(r.code, 0, r.stderr);
            const dump = JSON.parse(r.results.call_env);
            assert.equal(dump.env.GEEKAGENT_TEST_MARK, MARK, '应该是 env-dump 的真实输出');
            assert.equal(dump.env.PATH, process.env.PATH, '普通变量照常继承');
            assert.equal(dump.env.MY_SECRET_TOKEN, undefined);
            assert.equal(dump.env.OPENAI_API_KEY, undefined);
            assert.equal(dump.env.PASSED_TOKEN, '[REDACTED:MY_SECRET_TOKEN]');
            for (const req of r.fake.requests) assert.ok(!JSON.stringify(req.body).includes(SECRET), '请求体里出现了密钥');
            assert.ok(!(r.stdout + r.stderr).includes(SECRET), '屏幕上出现了密钥');
            assertNoLeftovers();
        });
    });
}
