// 你来当模型：一个本机的 OpenAI 兼容服务，没有 API Key 也能走完每一章的动手步骤。
//   npm run model                 在 8788 端口等 Agent 的请求（--port N 换端口，--port 0 随便挑一个空闲端口）
// 另开一个终端，按它打印的两行设好 OPENAI_BASE_URL 和 OPENAI_API_KEY 再启动任何一个阶段。每来一个请求，这里显示模型这一次
// 收到的新消息（用户和工具的消息全文；系统提示和工具列表只给摘要，/show 看整个请求），然后等你回答：
// 打一行字就作为回复流式发回去，`/tool 名字 {json}` 就让 Agent 调用这个工具。
// 它只是读者工具：不校验请求的内容（测试里的假服务才校验），一次只回答一个请求，后来的排队。
// 但它只属于你：你在这里读到、答出的就是 Agent 的对话，所以只收本机上带着这次密钥的请求（见分隔线以下的 refusal()）。
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import readline from 'node:readline';
import { visible } from './screen-text.ts';

type Message = { role: string; content?: string | null; tool_calls?: ToolCall[]; tool_call_id?: string; name?: string };
type ToolCall = { id: string; function: { name: string; arguments: string } };
type Request = { model?: string; messages: Message[]; tools?: { function: { name: string } }[]; tool_choice?: unknown; stream?: boolean; stream_options?: { include_usage?: boolean } };
type Pending = { body: Request; res: http.ServerResponse; n: number };

const DEFAULT_PORT = 8788;
const TOKEN = `sk-model-${crypto.randomBytes(24).toString('hex')}`;   // 这次运行的密钥：每次启动都换，印在横幅里
const MAX_BODY = 4 * 1024 * 1024;   // Agent 的请求远小于它（历史超过几千字符就压缩）；再大的只会是别人来占内存
const HELP = [
    '回答的写法：',
    '  直接打一行字          作为模型的回复流回去（\\n 表示换行）',
    '  /tool 名字 {json}     让 Agent 调用一个工具，例如 /tool run_shell {"command":"ls"}',
    '  /show                 显示这次请求的全文（JSON）',
    '  /help                 显示这段说明；Ctrl+C 或 Ctrl+D 退出',
].join('\n');

const queue: Pending[] = [];
let previous: Message[] = [];   // 上一个请求的消息：只显示这次新增的部分
let count = 0;

const server = http.createServer((req, res) => {
    const refused = refusal(req);
    if (refused) return refuse(res, refused);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY) chunks.push(chunk);
        else if (!res.headersSent) refuse(res, tooLarge());   // 没有 Content-Length（分块发送）时边收边数
    });
    req.on('end', () => {
        if (res.headersSent) return;
        let body: Request;
        try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
            refuse(res, { status: 400, code: 'invalid_json', message: '请求体不是 JSON' });
            return;
        }
        const pending: Pending = { body, res, n: ++count };
        queue.push(pending);
        // Agent 取消了（Esc、Ctrl+C）或退出了：这个请求不必再回答
        res.on('close', () => {
            if (res.writableEnded) return;
            const at = queue.indexOf(pending);
            if (at === -1) return;
            queue.splice(at, 1);
            say(`（Agent 取消了请求 #${pending.n}，不用回答了）`);
            if (at === 0) showHead();
        });
        if (queue.length === 1) showHead();
    });
});

/** 显示排在最前面的请求：模型这次收到的新消息，然后提示作答。 */
function showHead(): void {
    const head = queue[0];
    if (!head) return;
    const { body } = head;
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const tools = (body.tools ?? []).map((t) => t.function?.name);
    say(`\n── 请求 #${head.n}：${messages.length} 条消息，${tools.length ? `${tools.length} 个工具（${tools.join('、')}）` : '没有工具'}`);
    const same = commonPrefix(previous, messages);
    previous = messages;
    if (same > 0) say(`（前 ${same} 条和上一个请求相同，略去）`);
    for (const m of messages.slice(same)) say(describe(m));
    const forced = body.tool_choice && typeof body.tool_choice === 'object' ? (body.tool_choice as { function?: { name?: string } }).function?.name : undefined;
    if (forced) say(`（这次必须调用工具 ${forced}：用 /tool ${forced} {…} 回答）`);
    rl.prompt();
}

function describe(m: Message): string {
    const text = typeof m.content === 'string' ? m.content : '';
    if (m.role === 'system') return `[system] ${firstLine(text)}（共 ${text.length} 个字符，/show 看全文）`;
    if (m.role === 'tool') return `[工具结果 ${m.tool_call_id ?? ''}]\n${text}`;
    if (m.role === 'assistant') {
        const calls = (m.tool_calls ?? []).map((c) => `${c.function.name} ${c.function.arguments}`);
        return `[assistant（你之前的回答）] ${[text, ...calls].filter(Boolean).join(' / ')}`;
    }
    return `[${m.role}] ${text}`;
}

const firstLine = (text: string) => (text.split('\n')[0] ?? '').slice(0, 100);

function commonPrefix(a: Message[], b: Message[]): number {
    let i = 0;
    while (i < a.length && i < b.length && JSON.stringify(a[i]) === JSON.stringify(b[i])) i++;
    return i === b.length ? 0 : i;   // 完全一样（重试）时整份再显示一遍
}

/** 处理你打的一行：回复、工具调用或命令。 */
function answer(line: string): void {
    const head = queue[0];
    if (line === '/help') return say(HELP);
    if (!head) return say('（还没有请求：先在另一个终端里对 Agent 说一句话）');
    if (line === '/show') return say(JSON.stringify(head.body, null, 2));
    if (line.startsWith('/tool')) {
        const call = parseToolLine(line, head.body);
        if (typeof call === 'string') return say(call);
        send(head, [{ tool_calls: [{ index: 0, id: `call_${head.n}`, type: 'function', function: call }] }], 'tool_calls');
    } else if (line.startsWith('/')) {
        return say(`不认识的命令：${line}\n${HELP}`);
    } else {
        const text = line.replace(/\\n/g, '\n');
        const pieces = text.match(/[\s\S]{1,4}/gu) ?? [''];   // 几个字一块地流回去，看得见「流式」
        send(head, pieces.map((content) => ({ content })), 'stop');
    }
    queue.shift();
    showHead();
}

function parseToolLine(line: string, body: Request): { name: string; arguments: string } | string {
    const match = /^\/tool\s+(\S+)\s*([\s\S]*)$/.exec(line);
    if (!match) return '写法：/tool 名字 {json}，例如 /tool run_shell {"command":"ls"}';
    const [, name, args] = match;
    const known = (body.tools ?? []).map((t) => t.function?.name);
    if (!known.includes(name)) return `这个请求里没有工具 ${name}；可用的有：${known.join('、') || '（没有）'}`;
    try {
        JSON.parse(args || '{}');
    } catch (e) {
        return `参数不是有效的 JSON：${(e as Error).message}；再试一次`;
    }
    return { name, arguments: args || '{}' };
}

/** 按 OpenAI 的格式发回去。流式：一串 delta，最后一块带 finish_reason，要用量时再加一块 usage；
 *  不要流的请求（第 5 天的历史压缩、第 9 天的子 Agent）：一个完整的 JSON。 */
function send(p: Pending, deltas: object[], finish: string): void {
    const id = `chatcmpl-local-${p.n}`;
    if (p.body.stream !== true) {
        const content = deltas.map((d) => (d as { content?: string }).content ?? '').join('');
        const calls = deltas.flatMap((d) => ((d as { tool_calls?: { index: number }[] }).tool_calls ?? []).map(({ index, ...call }) => call));
        const message = { role: 'assistant', content: calls.length ? null : content, ...(calls.length ? { tool_calls: calls } : {}) };
        p.res.writeHead(200, { 'Content-Type': 'application/json' });
        p.res.end(JSON.stringify({ id, object: 'chat.completion', model: p.body.model ?? 'you', choices: [{ index: 0, message, finish_reason: finish }], usage: usageOf(p, deltas) }));
        return;
    }
    const chunk = (delta: object, finish_reason: string | null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', model: p.body.model ?? 'you', choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
    p.res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    p.res.write(chunk({ role: 'assistant', content: '' }, null));
    for (const d of deltas) p.res.write(chunk(d, null));
    p.res.write(chunk({}, finish));
    if (p.body.stream_options?.include_usage) {
        p.res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', choices: [], usage: usageOf(p, deltas) })}\n\n`);
    }
    p.res.end('data: [DONE]\n\n');
}

/** 用量：粗略估计，约 4 个字符一个 token，够面板显示数字用。 */
function usageOf(p: Pending, deltas: object[]) {
    const prompt = Math.ceil(JSON.stringify(p.body.messages).length / 4);
    const completion = Math.ceil(JSON.stringify(deltas).length / 4);
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

// 这里打印的一切都经 visible()：消息、工具结果、工具名、/show 的 JSON 都来自 Agent 那边（最终来自模型、文件、网页）
const say = (text: string) => console.log(visible(text));

function portArg(): number {
    const at = process.argv.indexOf('--port');
    if (at === -1) return DEFAULT_PORT;
    const port = Number(process.argv[at + 1]);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
        console.error(`--port 要一个 0–65535 的整数（0 表示随便挑一个空闲端口），收到：${process.argv[at + 1] ?? '（没有）'}`);
        process.exit(2);
    }
    return port;
}

const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: Boolean(process.stdin.isTTY) });
rl.setPrompt('模型 › ');
rl.on('line', (line) => answer(line.trim()));
rl.on('close', () => {
    server.close();
    server.closeAllConnections();
});

server.on('error', (e: NodeJS.ErrnoException) => {
    const hint = e.code === 'EADDRINUSE' ? '\n提示：端口被占用了，换一个：npm run model -- --port 0' : '';
    console.error(`启动失败：${e.message}${hint}`);
    process.exit(1);
});
server.listen(portArg(), '127.0.0.1', () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    say(`你来当模型：本机的 OpenAI 兼容服务已经在听，只收本机上带着下面这个密钥的请求（密钥每次启动都换）。\nOPENAI_BASE_URL=${url}\nOPENAI_API_KEY=${TOKEN}`);
    say(`在另一个终端里启动 Agent（用上面这两行；这里重启过就换上新的密钥）：\n  OPENAI_BASE_URL=${url} OPENAI_API_KEY=${TOKEN} npm run dev -- day04/index.ts`);
    say(HELP);
});

// —— 加固：只收本机上、带着这次密钥的 Agent 发来的请求 ——

type Refusal = { status: number; code: string; message: string };

/**
 * 为什么拒绝这个请求；可以收就返回 null。本机上任何网页、任何用户都连得上 127.0.0.1：
 * - Host 必须正好是 127.0.0.1:端口 或 localhost:端口：DNS 重绑定（evil.example 解析到 127.0.0.1）的请求带着别的 Host；
 * - 不能有 Origin：浏览器里的网页发请求时总带着它，Agent（Node 的 fetch）从不带；
 * - 要这次的密钥（Authorization: Bearer …）：本机的别的用户、别的程序不知道它；
 * - 只收 application/json，请求体最多 MAX_BODY 字节（有 Content-Length 时先看它，没有时边收边数）。
 * 限制：知道密钥的本机程序（比如能读你的终端、你的环境变量的）照样能用它；被拒绝的请求每个打印一行，来得多就刷屏。
 */
function refusal(req: http.IncomingMessage): Refusal | null {
    const port = (server.address() as AddressInfo).port;
    const host = req.headers.host ?? '';
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
        return { status: 403, code: 'forbidden_host', message: `只收发给 127.0.0.1:${port} 或 localhost:${port} 的请求，这个请求的 Host 是「${host}」` };
    }
    if (req.headers.origin !== undefined) return { status: 403, code: 'forbidden_origin', message: `不收网页发来的请求（Origin：${req.headers.origin}）` };
    if (!sameText(req.headers.authorization ?? '', `Bearer ${TOKEN}`)) {
        return { status: 401, code: 'invalid_api_key', message: '密钥不对：OPENAI_API_KEY 要用 npm run model 这次启动时打印的那个' };
    }
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        return { status: 404, code: 'not_found', message: `这里只有 POST /v1/chat/completions，没有 ${req.method} ${req.url}` };
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') return { status: 415, code: 'unsupported_media_type', message: `请求体要是 application/json，这个请求的 Content-Type 是「${type}」` };
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) return tooLarge();
    return null;
}

const tooLarge = (): Refusal => ({ status: 413, code: 'request_too_large', message: `请求体超过 ${MAX_BODY / 1024 / 1024} MiB` });

/** 比较密钥：用时不随相同的前缀长短变化（timingSafeEqual 要求长度相同，先比长度）。 */
function sameText(given: string, expected: string): boolean {
    const [a, b] = [Buffer.from(given), Buffer.from(expected)];
    return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/**
 * 按 OpenAI 的格式回一个错误，模型终端里记一行。还没收完的请求体照样读完、读了就扔（不占内存）：回完就断开的话，
 * 对方还在发时收到的是连接重置，连这个回答也看不到。
 */
function refuse(res: http.ServerResponse, r: Refusal): void {
    say(`（拒绝了一个请求：${r.status} ${r.message}）`);
    const body = JSON.stringify({ error: { message: r.message, type: 'invalid_request_error', param: null, code: r.code } });
    res.writeHead(r.status, { 'Content-Type': 'application/json' }).end(body);
}
