// 测试"测试工具"本身：假 OpenAI 服务的校验与脚本回复，以及阶段运行器。
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HARDENED, LESSONS, STAGES } from '../scripts/days.ts';
import { buildSse, toolCallSse } from '../scripts/fake-model/replies.ts';
import { startFakeOpenAI, type FakeServer } from '../scripts/fake-model/server.ts';
import { ERROR_FIXTURES, SSE_FIXTURES, assertNoRejections, loadHttpFixture, sseFixture, unusedBaseUrl } from './helpers/fixtures.ts';
import { HARDENED_ONLY, REPO_ROOT, runStage, stagesFrom, startStage } from './helpers/run-stage.ts';
import { waitUntil } from './helpers/wait.ts';
import { workdir } from './helpers/workdir.ts';

type Json = Record<string, any>;

interface PostInit {
    path?: string;
    method?: string;
    auth?: string | null;   // null = 不带 Authorization
    raw?: string;           // 原样作为请求体
    signal?: AbortSignal;
}

function post(server: FakeServer, body: unknown, init: PostInit = {}): Promise<Response> {
    const origin = server.url.replace(/\/v1$/, '');
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (init.auth !== null) headers.authorization = init.auth ?? 'Bearer sk-test-key-123456';
    const method = init.method ?? 'POST';
    return fetch(origin + (init.path ?? '/v1/chat/completions'), {
        method,
        headers,
        body: method === 'GET' ? undefined : init.raw ?? JSON.stringify(body),
        signal: init.signal,
    });
}

const json = (res: Response): Promise<any> => res.json();

// 足够测试用的 SSE 解析：每个事件一行 data
function parseSse(text: string): any[] {
    return text.split('\n\n').filter(Boolean).map((event) => {
        const data = event.replace(/^data: /, '');
        return data === '[DONE]' ? data : JSON.parse(data);
    });
}

const deltas = (events: any[]) => events.filter((e) => e !== '[DONE]' && e.choices.length > 0).map((e) => e.choices[0].delta);

const user = (content: unknown = 'hi') => ({ role: 'user', content });
// 请求体里 assistant 消息的 tool_calls 一项（线上的形状）；假模型回复里的工具调用用 agent.ts 的 call
const wireCall = (id: string, name = 'read', args: unknown = '{}') => ({ id, type: 'function', function: { name, arguments: args } });
const calling = (...ids: string[]) => ({ role: 'assistant', content: null, tool_calls: ids.map((id) => wireCall(id)) });
const answer = (id: string) => ({ role: 'tool', tool_call_id: id, content: 'done' });
const tool = (name: string, parameters: unknown = { type: 'object', properties: {} }) => ({
    type: 'function',
    function: { name, description: 'demo', parameters },
});
const chat = (messages: unknown[], extra: Json = {}) => ({ model: 'test-model', messages, ...extra });

describe('假服务：请求校验', () => {
    let server: FakeServer;
    before(async () => {
        server = await startFakeOpenAI({ replies: [{ kind: 'text', text: 'first' }] });
    });
    after(() => server.close());

    const invalid: Array<[string, unknown, PostInit, string]> = [
        ['错误路径', chat([user()]), { path: '/v1/completions' }, 'Invalid URL (POST /v1/completions)'],
        ['路径多了斜杠', chat([user()]), { path: '/v1//chat/completions' }, 'Invalid URL'],
        ['不是 POST', null, { method: 'GET' }, 'Invalid URL (GET /v1/chat/completions)'],
        ['缺少 Authorization', chat([user()]), { auth: null }, "didn't provide an API key"],
        ['不是 Bearer', chat([user()]), { auth: 'Basic abc' }, "didn't provide an API key"],
        ['Bearer 后为空', chat([user()]), { auth: 'Bearer ' }, "didn't provide an API key"],
        ['请求体不是 JSON', null, { raw: '{"model":' }, 'could not parse the JSON body'],
        ['缺少 model', { messages: [user()] }, {}, 'you must provide a model parameter'],
        ['缺少 messages', { model: 'm' }, {}, "Missing required parameter: 'messages'."],
        ['messages 为空', chat([]), {}, "[] is too short - 'messages'"],
        ['messages 不是数组', { model: 'm', messages: {} }, {}, "Invalid type for 'messages'"],
        ['非法角色', chat([{ role: 'bot', content: 'x' }]), {}, "Invalid value: 'bot'"],
        ['user 内容不是字符串', chat([user(['x'])]), {}, "Invalid type for 'messages[0].content'"],
        ['user 内容为 null', chat([user(null)]), {}, "Invalid type for 'messages[0].content'"],
        ['tool 消息缺 tool_call_id', chat([user(), calling('c1'), { role: 'tool', content: 'x' }]), {}, "'messages[2].tool_call_id'"],
        ['tool 消息内容不是字符串', chat([user(), calling('c1'), { role: 'tool', tool_call_id: 'c1', content: { a: 1 } }]), {}, "'messages[2].content'"],
        ['assistant 既无内容也无 tool_calls', chat([user(), { role: 'assistant' }]), {}, "Invalid value for 'content'"],
        ['assistant 内容为 null 且无 tool_calls', chat([user(), { role: 'assistant', content: null }]), {}, "Invalid value for 'content'"],
        ['tool_calls 为空数组', chat([user(), { role: 'assistant', content: 'x', tool_calls: [] }]), {}, "[] is too short - 'messages[1].tool_calls'"],
        ['调用未被回答（历史结尾）', chat([user(), calling('c1')]), {}, 'did not have response messages: c1'],
        ['调用未被回答（接着 user）', chat([user(), calling('c1'), user()]), {}, 'did not have response messages: c1'],
        ['只回答了一部分', chat([user(), calling('c1', 'c2'), answer('c1'), user()]), {}, 'did not have response messages: c2'],
        ['孤立的 tool 消息', chat([user(), answer('c1')]), {}, "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"],
        ['tool 消息隔着 user', chat([user(), calling('c1'), answer('c1'), user(), answer('c1')]), {}, "must be a response to a preceeding message"],
        ['同一调用回答两次', chat([user(), calling('c1'), answer('c1'), answer('c1')]), {}, 'must be a response to a preceeding message'],
        ['tool_call_id 对不上', chat([user(), calling('c1'), answer('c9')]), {}, 'must be a response to a preceeding message'],
        ['arguments 不是字符串', chat([user(), { role: 'assistant', content: null, tool_calls: [wireCall('c1', 'read', { a: 1 })] }, answer('c1')]), {}, "'messages[1].tool_calls[0].function.arguments'"],
        ['调用 id 为空', chat([user(), calling(''), answer('')]), {}, "'messages[1].tool_calls[0].id': empty string"],
        ['调用 id 重复', chat([user(), calling('c1', 'c1'), answer('c1')]), {}, "duplicate tool call id 'c1'"],
        ['tools 为空数组', chat([user()], { tools: [] }), {}, "[] is too short - 'tools'"],
        ['工具名含空格', chat([user()], { tools: [tool('read file')] }), {}, "Invalid 'tools[0].function.name'"],
        ['工具名为空', chat([user()], { tools: [tool('')] }), {}, "Invalid 'tools[0].function.name'"],
        ['工具名超过 64 字符', chat([user()], { tools: [tool('a'.repeat(65))] }), {}, "Invalid 'tools[0].function.name'"],
        ['工具名重复', chat([user()], { tools: [tool('read'), tool('read')] }), {}, "duplicate function name 'read'"],
        ['parameters 根类型不是 object', chat([user()], { tools: [tool('read', { type: 'array' })] }), {}, 'got \'type: "array"\''],
        ['parameters 缺 type', chat([user()], { tools: [tool('read', { properties: {} })] }), {}, 'got \'type: "None"\''],
        ['超过 128 个工具', chat([user()], { tools: Array.from({ length: 129 }, (_, i) => tool(`t${i}`)) }), {}, 'maximum length 128'],
        ['嵌套的 propertyNames', chat([user()], { tools: [tool('drop', { type: 'object', properties: { data: { type: 'object', propertyNames: { type: 'string' } } } })] }), {},
            "Invalid schema for function 'drop': In context=('properties', 'data'), 'propertyNames' is not permitted."],
        ['anyOf 里没有 items 的数组', chat([user()], { tools: [tool('list', { type: 'object', properties: { ids: { anyOf: [{ type: ['array', 'null'] }] } } })] }), {},
            "Invalid schema for function 'list': In context=('properties', 'ids', 'anyOf', '0'), array schema missing items."],
        ['stream_options 没有 stream', chat([user()], { stream_options: { include_usage: true } }), {}, "The 'stream_options' parameter is only allowed when 'stream' is enabled."],
        ['stream_options 配 stream:false', chat([user()], { stream: false, stream_options: { include_usage: true } }), {}, "only allowed when 'stream' is enabled"],
        ['tool_choice 没有 tools', chat([user()], { tool_choice: 'auto' }), {}, "'tool_choice' is only allowed when 'tools' are specified"],
        ['parallel_tool_calls 没有 tools', chat([user()], { parallel_tool_calls: false }), {}, "'parallel_tool_calls' is only allowed when 'tools' are specified"],
        ['强制的工具不在 tools 里', chat([user()], { tools: [tool('read')], tool_choice: { type: 'function', function: { name: 'todo_write' } } }), {}, "tool choice 'todo_write' not found"],
    ];

    for (const [name, body, init, expected] of invalid) {
        test(`拒绝：${name}`, async () => {
            const res = await post(server, body, init);
            assert.equal(res.status, 400);
            const reply = await json(res);
            assert.deepEqual(Object.keys(reply), ['error']);
            assert.equal(reply.error.type, 'invalid_request_error');
            assert.equal(reply.error.param, null);
            assert.equal(reply.error.code, null);
            assert.ok(reply.error.message.includes(expected), reply.error.message);
            assert.equal(server.requests.at(-1)?.rejected, reply.error.message);
        });
    }

    test('被拒绝的请求不消耗回复队列', async () => {
        const res = await post(server, chat([user()]));
        assert.equal(res.status, 200);
        assert.equal((await json(res)).choices[0].message.content, 'first');
        assert.equal(server.requests.at(-1)?.rejected, undefined);
    });
});

describe('假服务：接受合法请求', () => {
    let server: FakeServer;
    before(async () => {
        server = await startFakeOpenAI();
    });
    after(() => server.close());

    const valid: Array<[string, unknown]> = [
        ['最简单的对话', chat([user()])],
        ['完整的工具历史（含 reasoning_content、乱序回答、历史中的 system 摘要）', chat([
            { role: 'system', content: 'rules' },
            { role: 'system', content: 'summary of earlier turns' },
            user('read two files'),
            { role: 'assistant', content: null, reasoning_content: 'I should read both', tool_calls: [wireCall('call_a'), wireCall('call_b', 'glob', '{"pattern":"*.ts"}')] },
            answer('call_b'),
            answer('call_a'),
            { role: 'assistant', content: 'one more', tool_calls: [wireCall('call_c', 'read', '')] },
            answer('call_c'),
            { role: 'assistant', content: 'done' },
            user('thanks'),
        ], {
            stream: true,
            stream_options: { include_usage: true },
            tools: [tool('read'), tool('glob'), tool('todo_write')],
            tool_choice: { type: 'function', function: { name: 'todo_write' } },
        })],
        ['tool_choice auto、assistant 空字符串内容', chat([user(), { role: 'assistant', content: '' }, user()], { tools: [tool('a-b_c')], tool_choice: 'auto' })],
        ['tool_calls: null 视同没有', chat([user(), { role: 'assistant', content: 'x', tool_calls: null }, user()])],
        // 名叫 propertyNames 的属性、default 里的数据都不是关键字；$ref / $defs 照常接受
        ['属性名和数据里的 propertyNames、$ref 与 $defs', chat([user()], { tools: [tool('ok', {
            type: 'object',
            properties: { propertyNames: { type: 'string', default: { propertyNames: 1 } }, list: { type: 'array', items: { $ref: '#/$defs/item' } } },
            $defs: { item: { type: 'object', properties: {} } },
        })] })],
        ['正好 128 个工具', chat([user()], { tools: Array.from({ length: 128 }, (_, i) => tool(`t${i}`)) })],
    ];

    for (const [name, body] of valid) {
        test(`接受：${name}`, async () => {
            const res = await post(server, body);
            assert.equal(res.status, 200, await res.clone().text());
            await res.arrayBuffer();
        });
    }

    test('assertNoRejections 通过，出现拒绝后报出原因', async () => {
        assertNoRejections(server);
        await post(server, chat([user()], { tools: [] }));
        assert.throws(() => assertNoRejections(server), /\[\] is too short - 'tools'/);
    });
});

describe('假服务：脚本回复', () => {
    let server: FakeServer;
    before(async () => {
        server = await startFakeOpenAI();
    });
    after(() => server.close());

    const usage = { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 };

    test('流式文本：角色 chunk、增量、finish、usage、[DONE]', async () => {
        const text = '你好，世界 🌍！Hello';
        server.push({ kind: 'text', text, reasoning: '想一想', usage, chunkSize: 3 });
        const res = await post(server, chat([user()], { stream: true }));
        assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
        const events = parseSse(await res.text());
        const ds = deltas(events);
        assert.equal(ds[0].role, 'assistant');
        assert.equal(ds.map((d) => d.content ?? '').join(''), text);
        assert.equal(ds.map((d) => d.reasoning_content ?? '').join(''), '想一想');
        assert.ok(ds.filter((d) => d.content).every((d) => Array.from(d.content as string).length <= 3));
        const finish = events.filter((e) => e !== '[DONE]' && e.choices[0]?.finish_reason);
        assert.deepEqual(finish.map((e) => e.choices[0].finish_reason), ['stop']);
        assert.deepEqual(events.at(-2), { ...events.at(-2), choices: [], usage });
        assert.equal(events.at(-1), '[DONE]');
        assert.equal(events[0].model, 'test-model');
    });

    test('没有 stream 时，文本回复以非流式 JSON 返回', async () => {
        server.push({ kind: 'text', text: 'summary', usage });
        const res = await post(server, chat([user()]));
        assert.match(res.headers.get('content-type') ?? '', /application\/json/);
        const body = await json(res);
        assert.deepEqual(body.choices[0].message, { role: 'assistant', content: 'summary' });
        assert.equal(body.choices[0].finish_reason, 'stop');
        assert.deepEqual(body.usage, usage);
    });

    test('流式工具调用：开头 chunk 带 id/name，参数分段，整段调用，非零 index', async () => {
        server.push({
            kind: 'tools',
            text: '我先看看',
            calls: [
                { name: 'read', arguments: '{"path":"a.txt"}', pieces: 3 },
                { id: 'call_whole', name: 'write', arguments: '{"a":1}', whole: true },
                { name: 'ls', arguments: '', index: 5 },
            ],
        });
        const res = await post(server, chat([user()], { stream: true, tools: [tool('read'), tool('write'), tool('ls')] }));
        const events = parseSse(await res.text());
        const pieces = deltas(events).flatMap((d) => d.tool_calls ?? []);
        const byIndex = new Map<number, { id: string; name: string; args: string; count: number }>();
        for (const p of pieces) {
            const entry = byIndex.get(p.index) ?? { id: '', name: '', args: '', count: 0 };
            entry.id ||= p.id ?? '';
            entry.name ||= p.function?.name ?? '';
            entry.args += p.function?.arguments ?? '';
            entry.count++;
            byIndex.set(p.index, entry);
        }
        assert.deepEqual([...byIndex.keys()], [0, 1, 5]);
        assert.equal(byIndex.get(0)?.args, '{"path":"a.txt"}');
        assert.equal(byIndex.get(0)?.count, 4);
        assert.deepEqual(byIndex.get(1), { id: 'call_whole', name: 'write', args: '{"a":1}', count: 1 });
        assert.equal(byIndex.get(5)?.name, 'ls');
        assert.equal(byIndex.get(5)?.args, '');
        assert.ok(byIndex.get(0)?.id.startsWith('call_'));
        assert.notEqual(byIndex.get(0)?.id, byIndex.get(5)?.id);
        assert.equal(deltas(events).map((d) => d.content ?? '').join(''), '我先看看');
        assert.equal(events.at(-2).choices[0].finish_reason, 'tool_calls');
    });

    test('toolCallSse / buildSse 生成同样格式的响应体', () => {
        const body = toolCallSse([{ id: 'call_1', name: 'read', arguments: '{}' }], { reasoning: 'r' });
        const events = parseSse(body);
        assert.equal(events.at(-1), '[DONE]');
        const opener = deltas(events).find((d) => d.tool_calls)?.tool_calls[0];
        assert.deepEqual(opener, { index: 0, id: 'call_1', type: 'function', function: { name: 'read', arguments: '' } });
        assert.equal(deltas(parseSse(buildSse({ kind: 'text', text: 'abc' }))).map((d) => d.content).join(''), 'abc');
    });

    test('非流式的工具回复带 message.tool_calls', async () => {
        server.push({ kind: 'tools', calls: [{ id: 'call_9', name: 'read', arguments: '{}' }] });
        const body = await json(await post(server, chat([user()])));
        assert.deepEqual(body.choices[0].message.tool_calls, [wireCall('call_9')]);
        assert.equal(body.choices[0].message.content, null);
    });

    test('sse 回复原样返回夹具字节（CRLF 不被改写）', async () => {
        const reply = sseFixture('crlf-and-comments');
        assert.ok(reply.body.includes('\r\n'));
        server.push(reply);
        const res = await post(server, chat([user()], { stream: true }));
        assert.deepEqual(Buffer.from(await res.arrayBuffer()), reply.body);
        assert.deepEqual(sseFixture('usage-final-chunk.sse').body, readFileSync(path.join(SSE_FIXTURES, 'usage-final-chunk.sse')));
    });

    test('json 回复原样返回，即使请求是流式的', async () => {
        server.push({ kind: 'json', body: { error: 'Unexpected endpoint or method. (POST /chat/completions)' } });
        const res = await post(server, chat([user()], { stream: true }));
        assert.equal(res.status, 200);
        assert.deepEqual(await json(res), { error: 'Unexpected endpoint or method. (POST /chat/completions)' });
    });

    test('队列为空时回 ok', async () => {
        const body = await json(await post(server, chat([user()])));
        assert.equal(body.choices[0].message.content, 'ok');
    });

    test('hold 让流停在正文之后，客户端中途取消不影响后续请求', async () => {
        server.push({ kind: 'text', text: 'abcdefgh', chunkSize: 1, hold: new Promise(() => {}) });
        const controller = new AbortController();
        const res = await post(server, chat([user()], { stream: true }), { signal: controller.signal });
        const reader = res.body!.getReader();
        const first = await reader.read();
        assert.ok(!first.done);
        controller.abort();
        await assert.rejects(reader.read());
        const body = await json(await post(server, chat([user()])));
        assert.equal(body.choices[0].message.content, 'ok');
    });

    test('hold 兑现之后发出其余的事件：工具调用、finish、[DONE]', async () => {
        let release = () => {};
        const hold = new Promise<void>((resolve) => (release = resolve));
        server.push({ kind: 'tools', text: '先说一句', calls: [{ id: 'call_h', name: 'read', arguments: '{}' }], hold });
        const res = await post(server, chat([user()], { stream: true }));
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let received = '';
        while (!received.includes('先说一句')) received += decoder.decode((await reader.read()).value);
        assert.ok(!received.includes('tool_calls'), '兑现之前不该发出工具调用');
        release();
        for (let step = await reader.read(); !step.done; step = await reader.read()) received += decoder.decode(step.value);
        const events = parseSse(received);
        assert.equal(events.at(-1), '[DONE]');
        assert.equal(deltas(events).find((d) => d.tool_calls)?.tool_calls[0].id, 'call_h');
    });

    test('hang：只发一个 chunk 后挂住，close() 会断开它', async () => {
        const hanging = await startFakeOpenAI({ replies: [{ kind: 'hang', text: '正在' }] });
        const res = await post(hanging, chat([user()], { stream: true }));
        const reader = res.body!.getReader();
        const first = new TextDecoder().decode((await reader.read()).value);
        const ds = deltas(parseSse(first));
        assert.deepEqual(ds, [{ role: 'assistant', content: '正在' }]);
        const pending = reader.read();
        await hanging.close();
        await assert.rejects(pending);
    });

    test('cut：流到一半在事件中间断开', async () => {
        server.push({ kind: 'cut', text: 'partial answer' });
        const res = await post(server, chat([user()], { stream: true }));
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let received = '';
        await assert.rejects(async () => {
            for (;;) {
                const { value, done } = await reader.read();
                if (done) return;
                received += decoder.decode(value, { stream: true });
            }
        });
        assert.ok(received.includes('"content":"partial '));
        assert.ok(!received.includes('[DONE]'));
        assert.ok(!received.includes('finish_reason":"stop'));
        assert.ok(received.endsWith('{"content":"'));
    });

    test('waitForRequest 等到请求到达', async () => {
        const count = server.requests.length;
        const waiting = server.waitForRequest(count + 1);
        void post(server, chat([user('later')])).then((res) => res.arrayBuffer());
        assert.deepEqual((await waiting).body.messages, [user('later')]);
        await assert.rejects(server.waitForRequest(count + 5, 50), /超时/);
    });
});

describe('假服务：回复函数与兜底回复', () => {
    test('回复函数收到请求和已接受请求的序号', async () => {
        const server = await startFakeOpenAI({
            replies: (req, n) => ({ kind: 'text', text: `#${n} ${req.body.messages.at(-1).content}` }),
        });
        try {
            await post(server, chat([user()], { tools: [] }));
            const first = await json(await post(server, chat([user('a')])));
            server.push({ kind: 'text', text: 'queued' });
            const second = await json(await post(server, chat([user('b')])));
            const third = await json(await post(server, chat([user('c')])));
            assert.deepEqual([first, second, third].map((j) => j.choices[0].message.content), ['#0 a', 'queued', '#2 c']);
        } finally {
            await server.close();
        }
    });

    test('fallback 可配置', async () => {
        const server = await startFakeOpenAI({ fallback: { kind: 'http', status: 503, body: '{"error":{"message":"busy"}}' } });
        try {
            assert.equal((await post(server, chat([user()]))).status, 503);
        } finally {
            await server.close();
        }
    });

    test('unusedBaseUrl 连接被拒绝', async () => {
        const url = await unusedBaseUrl();
        await assert.rejects(fetch(`${url}/chat/completions`, { method: 'POST' }), (error: any) => {
            assert.equal(error.cause?.code, 'ECONNREFUSED');
            return true;
        });
    });
});

describe('.http 错误夹具', () => {
    const files = readdirSync(ERROR_FIXTURES).filter((f) => f.endsWith('.http'));

    test('夹具齐全', () => {
        assert.equal(files.length, 8);
    });

    for (const file of files) {
        test(`解析并原样返回：${file}`, async () => {
            const reply = loadHttpFixture(file);
            assert.equal(reply.status, Number(/-(\d{3})-/.exec(file)?.[1]));
            assert.equal(reply.headers['content-type'], 'application/json');
            const parsed = JSON.parse(reply.body);
            assert.equal(typeof parsed.error.message, 'string');
            const server = await startFakeOpenAI({ replies: [reply] });
            try {
                const res = await post(server, chat([user()], { stream: true }));
                assert.equal(res.status, reply.status);
                assert.equal(res.headers.get('content-type'), 'application/json');
                assert.equal(await res.text(), reply.body);
            } finally {
                await server.close();
            }
        });
    }

    test('保留响应头与正文的精确字节', () => {
        const tpm = loadHttpFixture('openai-429-rate-limit-tpm.http');
        assert.equal(tpm.headers['retry-after'], '19');
        assert.equal(tpm.headers['x-ratelimit-reset-requests'], '120ms');
        const openai = loadHttpFixture(path.join(ERROR_FIXTURES, 'openai-401-invalid-api-key.http'));
        assert.ok(openai.body.startsWith('{\n  "error": {'));
        assert.ok(openai.body.endsWith('}') && !openai.body.endsWith('\n'));
        assert.ok(loadHttpFixture('ollama-400-does-not-support-tools.http').body.endsWith('}\n'));
        const qwen = JSON.parse(loadHttpFixture('qwen-400-missing-tool-messages.http').body);
        assert.ok(qwen.error.message.startsWith('<400> InternalError.Algo.InvalidParameter:'));
    });
});

describe('runStage', () => {
    const scripts = workdir();
    const script = (name: string, code: string) => {
        const file = path.join(scripts, name);
        writeFileSync(file, code);
        return file;
    };

    // 用类型注解确认脚本确实经过 tsx 运行
    const echo = script('echo.ts', `
const chunks: string[] = [];
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => chunks.push(chunk));
process.stdin.on('end', () => {
    console.log(JSON.stringify({ cwd: process.cwd(), chunks, env: process.env }));
    console.error('到 stderr');
    process.exitCode = 3;
});
`);

    test('干净的环境、临时 cwd、stdin、退出码', async () => {
        const saved = { key: process.env.OPENAI_API_KEY, color: process.env.NO_COLOR };
        process.env.OPENAI_API_KEY = 'sk-real-parent-key';
        process.env.NO_COLOR = '1';
        try {
            const result = await runStage(STAGES[0], { entry: echo, input: ['hello', '你好'], env: { EXTRA: 'x', OPENAI_MODEL: undefined } });
            const out = JSON.parse(result.stdout);
            assert.equal(result.code, 3);
            assert.equal(result.stderr.trim(), '到 stderr');
            assert.equal(out.cwd, result.cwd);
            assert.equal(realpathSync(result.cwd), result.cwd);
            assert.ok(result.cwd.startsWith(realpathSync(os.tmpdir())));
            assert.equal(out.chunks.join(''), 'hello\n你好\n');
            assert.deepEqual(Object.keys(out.env).sort(), ['EXTRA', 'HOME', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'PATH']);
            // HOME 是每次新建的临时目录，不是真实主目录
            assert.equal(out.env.HOME, result.home);
            assert.notEqual(out.env.HOME, process.env.HOME);
            assert.ok(out.env.HOME.startsWith(realpathSync(os.tmpdir())));
            assert.equal(out.env.OPENAI_API_KEY, 'sk-test-key-123456');
            assert.match(out.env.OPENAI_BASE_URL, /^http:\/\/127\.0\.0\.1:/);
        } finally {
            for (const [name, value] of [['OPENAI_API_KEY', saved.key], ['NO_COLOR', saved.color]] as const) {
                if (value === undefined) delete process.env[name];
                else process.env[name] = value;
            }
        }
    });

    test('给定 cwd、base URL；holdStdin：写完 input 不关 stdin，测试接着写、自己关', async () => {
        // 每读到一行就回一行：看到回应，就知道进程还活着、stdin 还开着
        const lines = script('lines.ts', `
import readline from 'node:readline';
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line: string) => console.log('got:' + line));
rl.on('close', () => console.log(JSON.stringify({ cwd: process.cwd(), env: process.env })));
`);
        const cwd = workdir();
        const run = startStage(STAGES[0], { entry: lines, cwd, input: ['a'], holdStdin: true, env: { OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1' } });
        await waitUntil('第一行的回应', () => run.stdout().includes('got:a\n'), run.stdout);
        run.write('b');
        await waitUntil('第二行的回应', () => run.stdout().includes('got:b\n'), run.stdout);
        run.end();
        const result = await run.done;
        assert.equal(result.code, 0);
        const [first, second, last] = result.stdout.trim().split('\n');
        assert.deepEqual([first, second], ['got:a', 'got:b']);
        const out = JSON.parse(last);
        assert.equal(result.cwd, cwd);
        assert.equal(out.cwd, cwd);
        assert.equal(out.env.OPENAI_BASE_URL, 'http://127.0.0.1:1234/v1');
        assert.equal(out.env.OPENAI_MODEL, 'test-model');
        // 字符串形式的 input 原样写入，不补换行
        const raw = await runStage(STAGES[0], { entry: echo, input: 'a\nb\nc' });
        assert.equal(JSON.parse(raw.stdout).chunks.join(''), 'a\nb\nc');
    });

    test('期限一到杀掉进程，报错里带上已有的输出', async (t) => {
        // 期限用假时钟：等到有输出再拨到期限，不真等，机器再忙也不会在输出之前就超时
        t.mock.timers.enable({ apis: ['setTimeout'] });
        const stuck = script('stuck.ts', `console.log('started'); setInterval(() => {}, 1000);\n`);
        const run = startStage(STAGES[0], { entry: stuck, input: '', timeoutMs: 10_000 });
        await once(run.child.stdout!, 'data');
        t.mock.timers.tick(10_000);
        await assert.rejects(run.done, (error: Error) => {
            assert.match(error.message, /超时（10000 ms）/);
            assert.match(error.message, /started/);
            return true;
        });
    });

    test('onSpawn 可以给运行中的进程发信号', async () => {
        const waiting = script('wait.ts', `
process.on('SIGINT', () => { console.log('interrupted'); process.exit(0); });
console.log('ready');
setInterval(() => {}, 1000);
`);
        const result = await runStage(STAGES[0], {
            entry: waiting,
            input: [],
            onSpawn: (child) => child.stdout!.once('data', () => child.kill('SIGINT')),
        });
        assert.equal(result.code, 0);
        assert.match(result.stdout, /ready\ninterrupted/);
    });

    test('STAGES 是各课加上最后的加固版；stagesFrom 只返回磁盘上存在的阶段', () => {
        assert.deepEqual(STAGES, [...LESSONS, HARDENED]);
        assert.equal(LESSONS.length, 5);
        assert.deepEqual([...LESSONS].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })), [...LESSONS]);
        const present = stagesFrom(STAGES[0]);
        for (const stage of present) {
            assert.ok(STAGES.includes(stage));
            assert.ok(readdirSync(path.join(REPO_ROOT, stage)).includes('index.ts'));
        }
        assert.deepEqual(stagesFrom(LESSONS.at(-1)!), present.filter((s) => STAGES.indexOf(s) >= LESSONS.length - 1));
        assert.ok(present.includes(HARDENED), '加固版在表的最后');
        assert.deepEqual(HARDENED_ONLY, [HARDENED]);
        assert.throws(() => stagesFrom('nope'), /未知阶段/);
    });
});
