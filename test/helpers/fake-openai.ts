// 离线测试用的假 OpenAI 兼容服务：按脚本回复，并像真实 API 一样严格校验请求。
// 校验失败时回 400，且不消耗回复队列——客户端的历史记录 bug 会立刻暴露，而不是被假服务"宽容"掉。
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEADLINE_MS } from './wait.js';

// 录制的服务商响应放在 test/fixtures 下；从本文件位置推算，不依赖 cwd
const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
export const SSE_FIXTURES = path.join(FIXTURES, 'openai-sse');
export const ERROR_FIXTURES = path.join(FIXTURES, 'openai-errors');

export interface Usage {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
}

export interface FakeToolCall {
    id?: string;            // 缺省时生成 call_fake_N
    name: string;
    arguments: string;      // 原样拼接到流里，可以是不完整的 JSON
    index?: number;         // 缺省为在 calls 中的位置
    pieces?: number;        // arguments 拆成几段增量，缺省 2
    whole?: boolean;        // 整个调用放在一个 chunk 里（Ollama、GLM 的做法）
}

export interface TextReply {
    kind: 'text';
    text: string;
    reasoning?: string;     // 以 reasoning_content 增量先于正文发出
    usage?: Usage;
    finish?: string;        // 缺省 'stop'
    chunkSize?: number;     // 每个增量的字符数（按码点切，不会切坏 emoji），缺省 8
    hold?: Promise<unknown>; // 正文发完就停住，等它兑现才发其余的（工具调用、结尾）：测试在「回复还在流」时做事，不靠计时
}

export interface ToolsReply {
    kind: 'tools';
    calls: FakeToolCall[];
    text?: string;
    reasoning?: string;
    usage?: Usage;
    finish?: string;        // 缺省 'tool_calls'
    chunkSize?: number;
    hold?: Promise<unknown>;
}

export type FakeReply =
    | TextReply
    | ToolsReply
    | { kind: 'sse'; body: string | Buffer; hold?: Promise<unknown>; rest?: string }   // 给了 hold：body 发完停住，兑现后再发 rest（分在两次读取里到达）
    | { kind: 'http'; status: number; headers?: Record<string, string>; body: string }
    | { kind: 'json'; body: unknown }
    | { kind: 'hang'; text?: string }
    | { kind: 'cut'; text: string };

export interface RecordedRequest {
    method: string;
    path: string;
    headers: Record<string, string | string[] | undefined>;
    body: any;              // 解析后的 JSON；解析失败时是原始文本
    rejected?: string;      // 被校验拒绝时的错误信息
}

export interface FakeServer {
    url: string;            // 含 /v1 的 base URL，直接作为 OPENAI_BASE_URL
    requests: RecordedRequest[];
    push(...replies: FakeReply[]): void;
    // 等到至少收到 count 个请求（含被拒绝的），用于"请求发出后再发信号"的取消测试；期限缺省 DEADLINE_MS
    waitForRequest(count?: number, timeoutMs?: number): Promise<RecordedRequest>;
    close(): Promise<void>;
}

export interface FakeOptions {
    replies?: FakeReply[] | ((req: RecordedRequest, n: number) => FakeReply);
    fallback?: FakeReply;   // 队列为空且没有回复函数时使用，缺省回 'ok'
}

type Json = Record<string, any>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);

// ---------- 请求校验 ----------

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'];

// 返回错误信息，合法时返回 null。报文尽量照抄 OpenAI 的原话，方便和真实报错对照
export function validateChatBody(body: unknown): string | null {
    if (!isObj(body)) return `Invalid type for request body: expected an object, but got ${typeName(body)} instead.`;
    if (typeof body.model !== 'string' || body.model === '') return 'you must provide a model parameter';
    if (body.messages === undefined) return "Missing required parameter: 'messages'.";
    if (!Array.isArray(body.messages)) return `Invalid type for 'messages': expected an array, but got ${typeName(body.messages)} instead.`;
    if (body.messages.length === 0) return "[] is too short - 'messages'";
    const problem = checkMessages(body.messages) ?? checkTools(body);
    if (problem) return problem;
    if (body.stream !== undefined && typeof body.stream !== 'boolean') {
        return `Invalid type for 'stream': expected a boolean, but got ${typeName(body.stream)} instead.`;
    }
    if (body.stream_options !== undefined && body.stream !== true) {
        return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
    }
    return null;
}

function missingAnswers(ids: string[]): string {
    return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "
        + `The following tool_call_ids did not have response messages: ${ids.join(', ')}`;
}

function checkMessages(messages: unknown[]): string | null {
    let pending: string[] | null = null; // 上一条带 tool_calls 的 assistant 还没被回答的 id
    for (const [i, m] of messages.entries()) {
        const at = `messages[${i}]`;
        if (!isObj(m)) return `Invalid type for '${at}': expected an object, but got ${typeName(m)} instead.`;
        if (!ROLES.includes(m.role)) {
            return `Invalid value: '${String(m.role)}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`;
        }
        if (m.role === 'tool') {
            if (typeof m.tool_call_id !== 'string') return `Invalid type for '${at}.tool_call_id': expected a string, but got ${typeName(m.tool_call_id)} instead.`;
            if (typeof m.content !== 'string') return `Invalid type for '${at}.content': expected a string, but got ${typeName(m.content)} instead.`;
            if (!pending?.includes(m.tool_call_id)) {
                return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
            }
            pending = pending.filter((id) => id !== m.tool_call_id);
            continue;
        }
        if (pending?.length) return missingAnswers(pending);
        pending = null;
        if (m.role !== 'assistant') {
            if (typeof m.content !== 'string') return `Invalid type for '${at}.content': expected a string, but got ${typeName(m.content)} instead.`;
            continue;
        }
        const problem = checkAssistant(m, at);
        if (problem) return problem;
        if (m.tool_calls != null) pending = m.tool_calls.map((call: Json) => call.id);
    }
    return pending?.length ? missingAnswers(pending) : null;
}

function checkAssistant(m: Json, at: string): string | null {
    if (m.content != null && typeof m.content !== 'string') {
        return `Invalid type for '${at}.content': expected a string, but got ${typeName(m.content)} instead.`;
    }
    if (m.reasoning_content != null && typeof m.reasoning_content !== 'string') {
        return `Invalid type for '${at}.reasoning_content': expected a string, but got ${typeName(m.reasoning_content)} instead.`;
    }
    const calls = m.tool_calls;
    if (calls == null) {
        return m.content == null ? "Invalid value for 'content': expected a string, got null." : null;
    }
    if (!Array.isArray(calls)) return `Invalid type for '${at}.tool_calls': expected an array, but got ${typeName(calls)} instead.`;
    if (calls.length === 0) return `[] is too short - '${at}.tool_calls'`;
    const seen = new Set<string>();
    for (const [j, call] of calls.entries()) {
        const c = `${at}.tool_calls[${j}]`;
        if (!isObj(call)) return `Invalid type for '${c}': expected an object, but got ${typeName(call)} instead.`;
        if (typeof call.id !== 'string') return `Invalid type for '${c}.id': expected a string, but got ${typeName(call.id)} instead.`;
        if (call.id === '') return `Invalid '${c}.id': empty string. Expected a string with minimum length 1, but got an empty string instead.`;
        if (seen.has(call.id)) return `Invalid '${at}.tool_calls': duplicate tool call id '${call.id}'.`;
        seen.add(call.id);
        if (call.type !== 'function') return `Invalid value for '${c}.type': expected 'function'.`;
        if (!isObj(call.function) || typeof call.function.name !== 'string' || call.function.name === '') {
            return `Missing required parameter: '${c}.function.name'.`;
        }
        if (typeof call.function.arguments !== 'string') {
            return `Invalid type for '${c}.function.arguments': expected a string, but got ${typeName(call.function.arguments)} instead.`;
        }
    }
    return null;
}

function checkTools(body: Json): string | null {
    const names = new Set<string>();
    const tools = body.tools;
    if (tools !== undefined) {
        if (!Array.isArray(tools)) return `Invalid type for 'tools': expected an array, but got ${typeName(tools)} instead.`;
        if (tools.length === 0) return "[] is too short - 'tools'";
        if (tools.length > 128) {
            return `Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length ${tools.length} instead.`;
        }
        for (const [j, tool] of tools.entries()) {
            const at = `tools[${j}]`;
            if (!isObj(tool) || tool.type !== 'function' || !isObj(tool.function)) {
                return `Invalid value for '${at}': expected {"type": "function", "function": {...}}.`;
            }
            const name = tool.function.name;
            if (typeof name !== 'string') return `Missing required parameter: '${at}.function.name'.`;
            if (!TOOL_NAME.test(name)) {
                return `Invalid '${at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.`;
            }
            if (names.has(name)) return `Invalid 'tools': duplicate function name '${name}'.`;
            names.add(name);
            const params = tool.function.parameters;
            if (params !== undefined && (!isObj(params) || params.type !== 'object')) {
                const got = isObj(params) ? String(params.type ?? 'None') : typeName(params);
                return `Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${got}"'.`;
            }
            const deep = schemaProblem(params, name, []);
            if (deep) return deep;
        }
    }
    for (const key of ['tool_choice', 'parallel_tool_calls']) {
        if (body[key] !== undefined && tools === undefined) {
            return `Invalid value for '${key}': '${key}' is only allowed when 'tools' are specified.`;
        }
    }
    const choice = body.tool_choice;
    if (choice === undefined || choice === 'none' || choice === 'auto' || choice === 'required') return null;
    if (!isObj(choice) || choice.type !== 'function' || !isObj(choice.function) || typeof choice.function.name !== 'string') {
        return `Invalid value for 'tool_choice': ${JSON.stringify(choice)}. Supported values are: 'none', 'auto', 'required', or {"type": "function", "function": {"name": ...}}.`;
    }
    if (!names.has(choice.function.name)) {
        return `Invalid value for 'tool_choice': tool choice '${choice.function.name}' not found in 'tools' parameter.`;
    }
    return null;
}

// 参数模式里真实 API 拒绝的写法（不开 strict 也拒绝）：任何一层的 propertyNames、没有 items 的数组。
// 只沿着子模式往下走：properties 的键是属性名，default、enum 之类是数据，都不当关键字检查
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SCHEMA_ONE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'];

function schemaProblem(schema: unknown, fn: string, context: string[]): string | null {
    if (!isObj(schema)) return null;
    const where = `Invalid schema for function '${fn}': In context=(${context.map((c) => `'${c}'`).join(', ')}), `;
    if ('propertyNames' in schema) return `${where}'propertyNames' is not permitted.`;
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (types.includes('array') && schema.items === undefined) return `${where}array schema missing items.`;
    for (const [key, value] of Object.entries(schema)) {
        let subs: [string[], unknown][] = [];
        if (SCHEMA_MAPS.includes(key) && isObj(value)) subs = Object.entries(value).map(([k, v]) => [[key, k], v]);
        else if ((SCHEMA_LISTS.includes(key) || SCHEMA_ONE.includes(key)) && Array.isArray(value)) subs = value.map((v, i) => [[key, String(i)], v]);
        else if (SCHEMA_ONE.includes(key)) subs = [[[key], value]];
        for (const [path, sub] of subs) {
            const problem = schemaProblem(sub, fn, [...context, ...path]);
            if (problem) return problem;
        }
    }
    return null;
}

// 请求层面的校验（方法、路径、鉴权、JSON），通过后再校验 body
function checkRequest(req: RecordedRequest, raw: string): string | null {
    if (req.method !== 'POST' || req.path !== '/v1/chat/completions') return `Invalid URL (${req.method} ${req.path})`;
    const auth = req.headers.authorization;
    if (typeof auth !== 'string' || !/^Bearer \S+$/.test(auth)) {
        return "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";
    }
    try {
        req.body = JSON.parse(raw);
    } catch {
        return 'We could not parse the JSON body of your request. (HINT: This likely means you aren\'t using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)';
    }
    return validateChatBody(req.body);
}

// ---------- 回复构造 ----------

function split(text: string, size: number): string[] {
    size = Math.max(1, size);
    const chars = Array.from(text);
    const out: string[] = [];
    for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
    return out;
}

function splitInto(text: string, parts: number): string[] {
    return text === '' ? [] : split(text, Math.ceil(Array.from(text).length / Math.max(1, parts)));
}

let idCounter = 0;
const nextId = (prefix: string) => `${prefix}${++idCounter}`;

const frame = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

// 同一条回复的 chunk 共用 id / created / model，和真实流一致
function chunker(model: string) {
    const head = { id: nextId('chatcmpl-fake-'), object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
    const chunk = (delta: Json, finish: string | null = null) => frame({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] });
    const usage = (usage: Usage) => frame({ ...head, choices: [], usage });
    return { chunk, usage };
}

// 一次流式回复的 SSE 事件（每个元素是一个完整事件，含结尾空行）：text 到正文为止，rest 是其余的（工具调用、finish、用量、[DONE]）
function sseParts(reply: TextReply | ToolsReply, model: string): { text: string[]; rest: string[] } {
    const { chunk, usage } = chunker(model);
    const size = reply.chunkSize ?? 8;
    const text: string[] = [];
    const rest: string[] = [];

    const hasText = reply.kind === 'text' || reply.text !== undefined;
    text.push(chunk({ role: 'assistant', content: hasText ? '' : null }));
    for (const piece of split(reply.reasoning ?? '', size)) text.push(chunk({ content: null, reasoning_content: piece }));
    for (const piece of split(reply.text ?? '', size)) text.push(chunk({ content: piece }));

    if (reply.kind === 'tools') {
        for (const [i, call] of reply.calls.entries()) {
            const index = call.index ?? i;
            const id = call.id ?? nextId('call_fake_');
            const fn = { name: call.name, arguments: call.whole ? call.arguments : '' };
            rest.push(chunk({ tool_calls: [{ index, id, type: 'function', function: fn }] }));
            if (call.whole) continue;
            for (const piece of splitInto(call.arguments, call.pieces ?? 2)) {
                rest.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
            }
        }
    }

    rest.push(chunk({}, reply.finish ?? (reply.kind === 'tools' ? 'tool_calls' : 'stop')));
    if (reply.usage) rest.push(usage(reply.usage));
    rest.push('data: [DONE]\n\n');
    return { text, rest };
}

// 整个 SSE 响应体，可直接喂给流解析器或作为 { kind: 'sse' } 回复
export function buildSse(reply: TextReply | ToolsReply, model = 'test-model'): string {
    const { text, rest } = sseParts(reply, model);
    return [...text, ...rest].join('');
}

export function toolCallSse(calls: FakeToolCall[], extra: Omit<ToolsReply, 'kind' | 'calls'> = {}): string {
    return buildSse({ kind: 'tools', calls, ...extra });
}

// 非流式补全（压缩摘要、子 Agent 的请求）
export function buildCompletion(reply: TextReply | ToolsReply, model = 'test-model'): Json {
    const message: Json = { role: 'assistant', content: reply.text ?? null };
    if (reply.reasoning) message.reasoning_content = reply.reasoning;
    if (reply.kind === 'tools') {
        message.tool_calls = reply.calls.map((call) => ({
            id: call.id ?? nextId('call_fake_'),
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
        }));
    }
    const finish = reply.finish ?? (reply.kind === 'tools' ? 'tool_calls' : 'stop');
    const body: Json = {
        id: nextId('chatcmpl-fake-'),
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message, finish_reason: finish }],
    };
    if (reply.usage) body.usage = reply.usage;
    return body;
}

// 解析 .http 夹具：状态行、响应头、空行，其后是原样的响应体字节（不补也不删换行）
export function loadHttpFixture(file: string): { kind: 'http'; status: number; headers: Record<string, string>; body: string } {
    const text = readFileSync(path.resolve(ERROR_FIXTURES, file), 'utf8');
    const end = /\r?\n\r?\n/.exec(text);
    if (!end) throw new Error(`夹具缺少头部与正文之间的空行：${file}`);
    const [statusLine, ...headerLines] = text.slice(0, end.index).split(/\r?\n/);
    const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(statusLine)?.[1]);
    if (!status) throw new Error(`夹具状态行无法解析：${statusLine}`);
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    return { kind: 'http', status, headers, body: text.slice(end.index + end[0].length) };
}

// 读取 openai-sse 夹具原始字节作为回复（CRLF 等必须原样保留，所以读 Buffer）
export function sseFixture(name: string): { kind: 'sse'; body: Buffer } {
    const file = name.endsWith('.sse') ? name : `${name}.sse`;
    return { kind: 'sse', body: readFileSync(path.resolve(SSE_FIXTURES, file)) };
}

// ---------- 服务 ----------

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
}

function rejectRequest(res: http.ServerResponse, message: string): void {
    sendJson(res, 400, { error: { message, type: 'invalid_request_error', param: null, code: null } });
}

async function writeEvents(res: http.ServerResponse, reply: TextReply | ToolsReply, model: string): Promise<void> {
    const { text, rest } = sseParts(reply, model);
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    res.write(text.join(''));
    if (reply.hold) await reply.hold;
    // 客户端中途断开（取消）后不再写
    if (res.destroyed) return;
    res.end(rest.join(''));
}

async function answer(res: http.ServerResponse, reply: FakeReply, stream: boolean, model: string): Promise<void> {
    switch (reply.kind) {
        case 'text':
        case 'tools':
            if (stream) return writeEvents(res, reply, model);
            return sendJson(res, 200, buildCompletion(reply, model));
        case 'sse':
            res.writeHead(200, SSE_HEADERS);
            if (!reply.hold) return void res.end(reply.body);
            res.write(reply.body);
            await reply.hold;
            if (!res.destroyed) res.end(reply.rest ?? '');
            return;
        case 'http':
            res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
            res.end(reply.body);
            return;
        case 'json':
            return sendJson(res, 200, reply.body);
        case 'hang':
            // 只发头和一个 chunk，然后永不结束；客户端取消或 close() 时随连接一起销毁
            res.writeHead(200, stream ? SSE_HEADERS : { 'content-type': 'application/json' });
            res.flushHeaders();
            if (stream) res.write(chunker(model).chunk({ role: 'assistant', content: reply.text ?? '' }));
            return;
        case 'cut': {
            // 先正常发一段正文，再在一个事件中间掐断连接：没有 finish_reason，也没有 [DONE]
            const { chunk } = chunker(model);
            const events = [chunk({ role: 'assistant', content: '' }), ...split(reply.text, 8).map((piece) => chunk({ content: piece }))];
            events.push('data: {"choices":[{"index":0,"delta":{"content":"');
            res.writeHead(200, SSE_HEADERS);
            // 稍等再断，确保已写出的字节先到达客户端
            res.write(events.join(''), () => setTimeout(() => res.destroy(), 10));
            return;
        }
    }
}

export async function startFakeOpenAI(opts: FakeOptions = {}): Promise<FakeServer> {
    const queue: FakeReply[] = Array.isArray(opts.replies) ? [...opts.replies] : [];
    const script = typeof opts.replies === 'function' ? opts.replies : undefined;
    const fallback: FakeReply = opts.fallback ?? { kind: 'text', text: 'ok' };
    const requests: RecordedRequest[] = [];
    const waiters: Array<() => void> = [];
    let accepted = 0;

    async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const raw = Buffer.concat(chunks).toString('utf8');
        const recorded: RecordedRequest = {
            method: req.method ?? '',
            path: (req.url ?? '').split('?')[0],
            headers: { ...req.headers },
            body: raw,
        };
        requests.push(recorded);
        for (const wake of waiters.splice(0)) wake();

        const problem = checkRequest(recorded, raw);
        if (problem) {
            recorded.rejected = problem;
            return rejectRequest(res, problem);
        }
        const reply = queue.shift() ?? script?.(recorded, accepted) ?? fallback;
        accepted++;
        await answer(res, reply, recorded.body.stream === true, recorded.body.model);
    }

    const server = http.createServer((req, res) => {
        handle(req, res).catch((error) => {
            // 假服务自身出错时不能让测试进程崩溃：回 500 或直接断开
            if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: 'server_error' } });
            else res.destroy();
        });
    });

    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;

    return {
        url: `http://127.0.0.1:${port}/v1`,
        requests,
        push: (...replies) => void queue.push(...replies),
        async waitForRequest(count = 1, timeoutMs = DEADLINE_MS) {
            const deadline = Date.now() + timeoutMs;
            while (requests.length < count) {
                const left = deadline - Date.now();
                if (left <= 0) throw new Error(`等待第 ${count} 个请求超时（已收到 ${requests.length} 个）`);
                await new Promise<void>((resolve) => {
                    const timer = setTimeout(resolve, left);
                    waiters.push(() => { clearTimeout(timer); resolve(); });
                });
            }
            return requests[count - 1];
        },
        close: () => new Promise<void>((resolve) => {
            // 挂起的流（hang）和 keep-alive 连接都要断开，否则 close 永远等不到
            server.closeAllConnections();
            server.close(() => resolve());
        }),
    };
}

// 一个确定没人监听的 base URL，用来测"连接被拒绝"
export async function unusedBaseUrl(): Promise<string> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return `http://127.0.0.1:${port}/v1`;
}

export function assertNoRejections(server: FakeServer): void {
    const rejected = server.requests.filter((r) => r.rejected !== undefined);
    if (rejected.length === 0) return;
    const lines = rejected.map((r) => `#${server.requests.indexOf(r)} ${r.method} ${r.path}: ${r.rejected}`);
    assert.fail(`假服务拒绝了 ${rejected.length} 个请求：\n${lines.join('\n')}`);
}
