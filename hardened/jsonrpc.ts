// Day 15：JSON-RPC 2.0 的请求与响应：每个请求一个 id，响应按 id 交回等它的请求，等不到就超时。只讲 JSON-RPC：
// 哪些请求带进度令牌、哪些不能取消是 MCP 的规矩（mcp-client.ts），消息怎样切行在 mcp-framing.ts
import { isObject, jsonText, type Json } from './json.ts';

// 错误响应。code 要保留：tools/list 的 -32601 表示「没有工具」而不是失败；超时单独一类，调用方要补上「怎样调大」
export class RpcError extends Error {
    readonly code: number;

    constructor(code: number, message: string) {
        super(`MCP 错误 ${code}：${message}`);
        this.code = code;
    }
}
export class RequestTimeout extends Error {}

// id 从 1 递增、永不复用：放弃以后才到的响应找不到记录，被丢掉。
// onGiveUp：超时或取消、不再等一个请求时调用（要不要告诉对方，是上层协议的事）
export class RequestTable {
    private nextId = 1;
    private readonly pending = new Map<number, Pending>();
    private closed?: Error;
    private readonly send: (msg: Json) => void;
    private readonly onGiveUp: (id: number, method: string, reason: string) => void;

    constructor(send: (msg: Json) => void, onGiveUp: (id: number, method: string, reason: string) => void) {
        this.send = send;
        this.onGiveUp = onGiveUp;
    }

    // 发出请求，等同 id 的响应；timeoutMs 内没有响应就失败，signal 取消时也不再等。已经取消了的根本不发（也就不用通知对方取消）
    request(method: string, params: Json, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
        if (this.closed) return Promise.reject(this.closed);
        if (signal?.aborted) return Promise.reject(new Error(`请求 ${method} 已取消`));
        const id = this.nextId++;
        return new Promise((resolve, reject) => {
            this.pending.set(id, { method, timeoutMs, timer: setTimeout(() => this.expire(id), timeoutMs), resolve, reject });
            this.send({ jsonrpc: '2.0', id, method, params });
            if (signal) this.giveUpOnAbort(id, signal);
        });
    }

    // 响应（带 id 和 result 或 error）交给等它的请求。返回 false：不是响应，或没有对应的请求（未知 id、已放弃）
    settle(msg: Json): boolean {
        const entry = typeof msg.id === 'number' && ('result' in msg || 'error' in msg) ? this.take(msg.id) : undefined;
        if (!entry) return false;
        if ('error' in msg) entry.reject(rpcError(msg.error));
        else entry.resolve(msg.result);
        return true;
    }

    close(error: Error): void {   // 对方不在了：还在等的请求一起失败，之后的请求也立刻失败
        this.closed ??= error;
        for (const id of this.pending.keys()) this.take(id)!.reject(error);
    }

    private expire(id: number): void {
        const { method, timeoutMs } = this.pending.get(id)!;
        this.giveUp(id, new RequestTimeout(`请求 ${method} 超时（${timeoutMs / 1000} 秒内没有响应）`), 'timeout');
    }

    // —— 加固：取消、进度、结束时的清理 ——
    // 对方表示还在处理（MCP 的进度通知）：从现在起重新计时
    restart(id: number): void {
        this.pending.get(id)?.timer.refresh();
    }

    // 调用方不再要结果（用户取消这一轮）：像超时一样放弃。请求结束时摘掉监听：同一轮里调用再多，监听也不会堆积
    private giveUpOnAbort(id: number, signal: AbortSignal): void {
        const entry = this.pending.get(id)!;
        const onAbort = () => this.giveUp(id, new Error(`请求 ${entry.method} 已取消`), 'cancelled by user');
        signal.addEventListener('abort', onAbort, { once: true });
        entry.unlisten = () => signal.removeEventListener('abort', onAbort);
    }

    // 不再等这个请求：以 error 失败，再告诉 onGiveUp
    private giveUp(id: number, error: Error, reason: string): void {
        const entry = this.take(id);
        if (!entry) return;
        entry.reject(error);
        this.onGiveUp(id, entry.method, reason);
    }

    // 移出表，停掉计时器和取消的监听；已经结束的请求返回 undefined
    private take(id: number): Pending | undefined {
        const entry = this.pending.get(id);
        if (!entry) return undefined;
        this.pending.delete(id);
        clearTimeout(entry.timer);
        entry.unlisten?.();
        return entry;
    }
}

type Pending = { method: string; timeoutMs: number; timer: NodeJS.Timeout; resolve(result: unknown): void; reject(error: Error): void; unlisten?(): void };

// 服务器给的 error 对象照样不可信：缺字段时 code 当 0、message 当空。数组、对象不交给 Number()、String()：
// 它们会逐层递归（见 json.ts 的 tooDeep）。官方 SDK 写的服务器把「MCP error -32603: 」放进 message 开头：
// 和 code 相同的这段去掉，错误码只显示一次（不同的码照原样留着，那是服务器自己转述的另一个错误）
function rpcError(error: unknown): RpcError {
    const e = isObject(error) ? error : {};
    const message = isObject(e.message) || Array.isArray(e.message) ? jsonText(e.message) : String(e.message ?? '');
    const code = typeof e.code === 'object' ? 0 : Number(e.code ?? 0);
    return new RpcError(code, message.startsWith(`MCP error ${code}: `) ? message.slice(`MCP error ${code}: `.length) : message);
}
