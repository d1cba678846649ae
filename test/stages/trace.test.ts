// 协议追踪（GEEKAGENT_TRACE、/trace）：经真实入口、管道输入、假 OpenAI 服务验证。
// Day 1 起追踪和模型的 HTTP 往来；Day 8 起追踪内容先脱敏；Day 15 起追踪和 MCP 服务器之间的每一行 JSON-RPC。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools, type FakeReply } from '../../scripts/fake-model/replies.ts';
import { MCP_READY, runAgent } from '../helpers/agent.ts';
import { SSE_FIXTURES, sseFixture } from '../helpers/fixtures.ts';
import { HARDENED_ONLY, REPO_ROOT } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

const TRACE = path.join('.geekagent', 'trace.log');
const SECRET = 'sekrit-4242-zz9';
// 每行：+秒数s 通道 [服务器名] 方向 原文
const LINE = /^\+\d+\.\d{3}s (llm|mcp \S+) (→|←|·) (.*)$/;

/** 跑一次，再读出追踪文件：raw 是全文（没有文件时为 null），lines 是非空的行。 */
async function traced(stage: string, input: string[], replies: FakeReply[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
    const r = await runAgent(stage, { input, replies, ...opts });
    const file = path.join(r.cwd, TRACE);
    const raw = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
    return { ...r, raw, lines: (raw ?? '').split('\n').filter(Boolean) };
}

/** 每一行都合规，拆成 [谁, 方向, 原文]。 */
function parse(lines: string[]): [string, string, string][] {
    return lines.map((line) => {
        const m = LINE.exec(line);
        assert.ok(m, `格式不对的追踪行：${line}`);
        return [m[1], m[2], m[3]];
    });
}

/** 录制流里的每个字段行（空行和注释之外），按原来的顺序出现在追踪里。 */
function assertStreamTraced(entries: [string, string, string][], fixture: string, from: number): number {
    const wire = fs.readFileSync(path.join(SSE_FIXTURES, fixture), 'utf8').split(/\r\n|\r|\n/).filter((l) => l !== '' && !l.startsWith(':'));
    let at = from;
    for (const line of wire) {
        const found = entries.findIndex(([who, dir, body], i) => i >= at && who === 'llm' && dir === '←' && body === line);
        assert.ok(found >= 0, `${fixture} 的这一行没有按顺序出现在追踪里：${line}`);
        at = found + 1;
    }
    return at;
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 协议追踪（模型 API）`, () => {
        test('GEEKAGENT_TRACE=llm：两轮对话的请求体、状态和录制流的每一行都按顺序在追踪里；密钥不在；超过 4 MiB 的旧文件换成 .1', async () => {
            const old = 'x'.repeat(4 * 1024 * 1024 + 1) + '\n';
            const cwd = workdir({ [TRACE]: old });
            const r = await traced(stage, ['你好', '再说一遍'], [sseFixture('ollama-style'), sseFixture('multiline-data')], { cwd, env: { GEEKAGENT_TRACE: 'llm' } });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(fs.readFileSync(path.join(cwd, `${TRACE}.1`), 'utf8'), old, '旧文件原样留作 .1');
            assert.match(r.stdout, /协议追踪已开启.*\.geekagent\/trace\.log/);
            assert.match(r.stdout, /My name is Neo Vim\./);
            const entries = parse(r.lines);
            const sent = entries.filter(([, dir]) => dir === '→');
            assert.equal(sent.length, 2);
            sent.forEach(([, , body], i) => assert.deepEqual(JSON.parse(body), r.requests[i].body, '追踪的请求体就是发出去的请求体'));
            assert.equal(entries.filter(([, dir, body]) => dir === '←' && body === 'HTTP 200').length, 2);
            const afterFirst = assertStreamTraced(entries, 'ollama-style.sse', 0);
            assert.ok(entries.findIndex(([, dir]) => dir === '→') < afterFirst);
            const secondRequest = entries.findIndex(([, dir], i) => i > 0 && dir === '→' && entries.slice(0, i).some(([, d]) => d === '→'));
            assert.ok(secondRequest >= afterFirst, '第二个请求在第一个流读完之后');
            assertStreamTraced(entries, 'multiline-data.sse', secondRequest);
            assert.doesNotMatch(r.raw!, /sk-test-key-123456/, 'API Key 只在请求头里，不进追踪');
        });

        test('没打开追踪：不写追踪文件，也不提追踪', async () => {
            const r = await traced(stage, ['你好'], [text('嗯')]);
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.raw, null);
            assert.doesNotMatch(r.stdout, /协议追踪/);
        });

        // 追踪文件本身是目录、管道的，启动时就拒绝（clean-trace-fifo.test.ts）；这里它是普通文件，超过 4 MiB 要换成 .1，.1 却是个目录
        test('追踪文件写不进去（旧文件换不到 .1）：停止追踪，对话照常进行', async () => {
            const cwd = workdir();
            fs.mkdirSync(path.join(cwd, TRACE + '.1'), { recursive: true });
            fs.writeFileSync(path.join(cwd, TRACE), 'x'.repeat((4 << 20) + 1));
            const r = await runAgent(stage, { cwd, input: ['你好', '/trace'], replies: [text('照常回答')], env: { GEEKAGENT_TRACE: 'llm' } });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /照常回答/);
            assert.doesNotMatch(r.stdout + r.stderr, /请求失败|EISDIR/);
            // 停掉之后 /trace 再打开：说明它之前确实关了
            assert.match(r.stdout, /You › \/trace\n（协议追踪已开启/);
        });

        test('/trace 中途开关：开着时记下 HTTP 500、重试决定和转义后的控制字符，关掉之后不再记', async () => {
            const evil = 'data: {"choices":[{"index":0,"delta":{"content":"好"},"finish_reason":"stop"}]}\nid: x\x1b]0;pwned\x07\n\ndata: [DONE]\n\n';
            const r = await traced(stage, ['/trace', '第一问', '第二问', '/trace', '第三问'], [
                { kind: 'http', status: 500, body: '{"error":{"message":"boom"}}' }, text('一'), { kind: 'sse', body: evil }, text('三'),
            ]);
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /协议追踪已开启.*\.geekagent\/trace\.log/);
            assert.match(r.stdout, /协议追踪已关闭/);
            const entries = parse(r.lines);
            const summary = entries
                .filter(([, dir, body]) => dir !== '←' || body.startsWith('HTTP '))
                .map(([, dir, body]) => (dir === '→' ? `→ ${JSON.parse(body).messages.at(-1).content}` : dir === '·' ? '· 重试' : `← ${body}`));
            assert.deepEqual(summary, ['→ 第一问', '← HTTP 500', '· 重试', '→ 第一问', '← HTTP 200', '→ 第二问', '← HTTP 200']);
            assert.match(entries.find(([, dir]) => dir === '·')![2], /秒后重试（HTTP 500）/);
            assert.ok(r.lines.some((l) => l.endsWith('llm ← id: x\\u001b]0;pwned\\u0007')), '控制字符转义成 \\uXXXX');
            assert.doesNotMatch(r.raw!, /[\x1b\x07]/);
            assert.doesNotMatch(r.raw!, /第三问/, '关掉之后的请求不进追踪');
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 协议追踪先脱敏`, () => {
        test('.env 里的密钥出现在输入、工具结果和模型回复里：追踪里一处都没有', async () => {
            const cwd = workdir({ '.env': `GEEKAGENT_TEST_SECRET=${SECRET}\n`, 'note.txt': `token is ${SECRET}\n` });
            const r = await traced(stage, [`记住 ${SECRET}`], [tools(call('c1', 'read', { path: 'note.txt' })), text(`读到了 ${SECRET}`)], {
                cwd, env: { GEEKAGENT_TRACE: 'all' },
            });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(parse(r.lines).filter(([, dir]) => dir === '→').length, 2);
            assert.ok(r.raw!.includes('[REDACTED'), '密钥处换成了脱敏标记');
            assert.ok(!r.raw!.includes(SECRET), '追踪里不能有密钥');
        });
    });
}

for (const stage of HARDENED_ONLY) {
    const DEMO = path.join(REPO_ROOT, stage, 'demo-server.mjs');
    const ENV_DUMP = path.join(REPO_ROOT, 'test', 'mcp', 'servers', 'env-dump.mjs');
    describe(`${stage}: 协议追踪（MCP）`, () => {
        test('GEEKAGENT_TRACE=mcp：demo 的握手与调用按教程的顺序出现，id 一一对应；不记模型 API', async () => {
            const cwd = workdir({ '.geekagent/mcp.json': JSON.stringify({ mcpServers: { demo: { command: 'node', args: [DEMO] } } }) });
            // 第一行回答文件夹信任问题（mcp.json 会启动服务器）
            const r = await traced(stage, ['y', MCP_READY, '掷一次骰子', 'y'], [tools(call('c1', 'mcp_demo_dice')), text('掷好了')], { cwd, env: { GEEKAGENT_TRACE: 'mcp' } });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /协议追踪已开启（mcp）.*\.geekagent\/trace\.log/);
            const entries = parse(r.lines);
            assert.ok(entries.every(([who]) => who === 'mcp demo'), '只开了 mcp 通道');
            assert.match(entries[0][2], /^启动 node .*demo-server\.mjs（pid \d+）$/);
            const wire = entries.filter(([, dir]) => dir !== '·').map(([, dir, body]) => ({ dir, msg: JSON.parse(body) }));
            const shape = wire.map(({ dir, msg }) => `${dir} ${msg.method ?? 'result'}${'id' in msg ? ` #${msg.id}` : ''}`);
            const [init, list, callId] = [wire[0].msg.id, wire[3].msg.id, wire[5].msg.id];
            assert.deepEqual(shape, [
                `→ initialize #${init}`, `← result #${init}`, '→ notifications/initialized',
                `→ tools/list #${list}`, `← result #${list}`, `→ tools/call #${callId}`, `← result #${callId}`,
            ]);
            assert.equal(new Set([init, list, callId]).size, 3);
            assert.deepEqual(wire[4].msg.result.tools.map((t: any) => t.name), ['word_count', 'dice']);
            // 比教程多一个进度令牌（就是请求 id）：报进度的慢工具不会被 10 秒的超时掐断
            assert.deepEqual(wire[5].msg.params, { name: 'dice', arguments: {}, _meta: { progressToken: wire[5].msg.id } });
            assert.match(wire[6].msg.result.content[0].text, /^点数：[1-6]$/);
            assert.match(entries.at(-1)![2], /停止|已退出/);
        });

        test('MCP 工具结果里的密钥（服务器把环境变量原样返回）：追踪里只有脱敏标记', async () => {
            const cwd = workdir({
                '.env': `SERVICE_TOKEN=${SECRET}\n`,
                '.geekagent/mcp.json': JSON.stringify({ mcpServers: { dump: { command: 'node', args: [ENV_DUMP], env: { SERVICE_TOKEN: '${SERVICE_TOKEN}' } } } }),
            });
            // 第一行回答文件夹信任问题
            const r = await traced(stage, ['y', MCP_READY, '看看环境', 'y'], [tools(call('c1', 'mcp_dump_env')), text('看完了')], { cwd, env: { GEEKAGENT_TRACE: 'llm,mcp' } });
            assert.equal(r.code, 0, r.stderr);
            const entries = parse(r.lines);
            const result = entries.find(([who, dir, body]) => who === 'mcp dump' && dir === '←' && body.includes('SERVICE_TOKEN'));
            assert.ok(result, '服务器返回环境变量的那一行在追踪里');
            assert.match(result[2], /REDACTED/);
            assert.ok(entries.some(([who]) => who === 'llm'), 'llm,mcp 两个通道都开着');
            assert.ok(!r.raw!.includes(SECRET), '追踪里不能有密钥');
        });
    });
}
