// 本机的假 OpenAI 兼容服务：按脚本（回复队列或按请求内容决定的函数）回复，并像真实 API 一样严格校验请求（validate.ts）。
// 校验失败时回 400，且不消耗回复队列——客户端的历史记录 bug 会立刻暴露，而不是被假服务"宽容"掉。
// npm run check 用它扮演学习者 Agent 面对的模型，npm run demo 用它重放一章，测试用它代替真实服务。
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { buildCompletion, chunker, split, sseParts, type FakeReply, type TextReply, type ToolsReply } from './replies.ts';
import { validateChatBody } from './validate.ts';

/** 等一个请求的缺省期限：和一次运行的兜底期限相同，给得很宽。 */
const WAIT_MS = 90_000;

export interface RecordedRequest {
    method: string;
    path: string;
    headers: Record<string, string | string[] | undefined>;
    body: any;              // 解析后的 JSON；解析失败时是原始文本
    rejected?: string;      // 被校验拒绝时的错误信息
    at: number;             // 到达的时刻（Date.now()）
    reply?: FakeReply;      // 回了什么（被拒绝的请求没有）
    done?: number;          // 回复发完（或连接断开）的时刻；还在回的请求没有
}

export interface FakeServer {
    url: string;            // 含 /v1 的 base URL，直接作为 OPENAI_BASE_URL
    requests: RecordedRequest[];
    open(): number;         // 此刻还没回完的请求数（客户端已经发来、回复还没发完）：npm run check 据此判断 Agent 是否在等模型
    maxOpen(): number;      // 同时没回完的请求最多有几个：大于 1 说明客户端的两轮对话交叠了
    push(...replies: FakeReply[]): void;
    // 等到至少收到 count 个请求（含被拒绝的），用于"请求发出后再发信号"的取消测试；期限缺省 WAIT_MS
    waitForRequest(count?: number, timeoutMs?: number): Promise<RecordedRequest>;
    close(): Promise<void>;
}

export interface FakeOptions {
    replies?: FakeReply[] | ((req: RecordedRequest, n: number) => FakeReply);
    fallback?: FakeReply;   // 队列为空且没有回复函数时使用，缺省回 'ok'
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
    let open = 0;
    let maxOpen = 0;

    async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
        // 请求一到（还没读完请求体）就算在回：连接断开或回复发完才算回完
        open++;
        maxOpen = Math.max(maxOpen, open);
        let recorded: RecordedRequest | undefined;
        res.once('close', () => {
            open--;
            if (recorded) recorded.done = Date.now();
        });
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const raw = Buffer.concat(chunks).toString('utf8');
        recorded = {
            method: req.method ?? '',
            path: (req.url ?? '').split('?')[0],
            headers: { ...req.headers },
            body: raw,
            at: Date.now(),
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
        recorded.reply = reply;
        await answer(res, reply, recorded.body.stream === true, recorded.body.model);
    }

    // 连上了、请求还没解析出来的连接也算没回完：Agent 发出请求的那一刻，这个进程可能还没轮到读它（事件循环先跑了计时器），
    // 只看 handle 里的 open 会把「请求在路上」当成「Agent 在等输入」
    const connecting = new Set<Socket>();
    const server = http.createServer((req, res) => {
        connecting.delete(req.socket);
        handle(req, res).catch((error) => {
            // 假服务自身出错时不能让测试进程崩溃：回 500 或直接断开
            if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: 'server_error' } });
            else res.destroy();
        });
    });

    server.on('connection', (socket: Socket) => {
        connecting.add(socket);
        socket.once('close', () => connecting.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;

    return {
        url: `http://127.0.0.1:${port}/v1`,
        requests,
        open: () => open + connecting.size,
        maxOpen: () => maxOpen,
        push: (...replies) => void queue.push(...replies),
        async waitForRequest(count = 1, timeoutMs = WAIT_MS) {
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

