// Day 1：手写的 OpenAI 兼容客户端：POST {base}/chat/completions，流式读 SSE，失败重试。
import { setTimeout as sleep } from 'node:timers/promises';
import { err } from './color.ts';
import { missingKey, type Config } from './config.ts';
import { errorMessage, normalizeUsage, readChatStream, tryParse, type Delta, type StreamResult, type Usage } from './sse.ts';
import { trace } from './trace.ts';

export interface Message {
    role: 'system' | 'user' | 'assistant' | 'tool';   // Day 5：压缩后的摘要是一条 system 消息
    content: string | null;   // 带工具调用的 assistant 消息没有文字时为 null
    tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    tool_call_id?: string;
    reasoning_content?: string;
}

/** Day 2：请求体里除 model 和 stream 之外的部分：tools 等由调用方按阶段决定。 */
export interface ChatRequest {
    messages: Message[];
    [field: string]: unknown;
}

export class ApiError extends Error {}   // 给用户看的错误：消息里已经带着 HTTP 状态和服务商自己的原话

/** 流式请求：边收边产出文字/思考增量，读完返回整个回复。 */
export async function* streamChat(cfg: Config, req: ChatRequest, signal?: AbortSignal): AsyncGenerator<Delta, StreamResult> {
    const res = await post(cfg, { model: cfg.model, ...req, stream: true }, signal);   // Day 2：请求里还有 tools 等字段
    return yield* readChatStream(res.body!);
}

/** Day 5：非流式请求（压缩摘要、子 Agent 用）：不带 stream、tools。 */
export async function complete(cfg: Config, messages: Message[], signal?: AbortSignal): Promise<{ content: string; usage: Usage | null }> {
    const res = await post(cfg, { model: cfg.model, messages }, signal);
    const payload = await checkedJson(res);
    const content = payload.choices?.[0]?.message?.content;
    return { content: typeof content === 'string' ? content : '', usage: payload.usage ? normalizeUsage(payload.usage) : null };
}

/** 发请求：失败时抛出 ApiError，可以重试的失败先重试（见 withRetry）。 */
async function post(cfg: Config, body: object, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { 'Authorization': `Bearer ${requiredKey(cfg)}`, 'Content-Type': 'application/json' };
    if ('stream' in body) headers['Accept'] = 'text/event-stream';   // Day 5：非流式请求不要
    const json = JSON.stringify(body);   // 只序列化一次：每次重试、追踪用的都是这一份
    return withRetry(cfg.baseUrl, signal, () => {
        trace('→', json);
        return fetch(`${cfg.baseUrl}/chat/completions`, { method: 'POST', headers, body: json, signal });
    });
}

// —— 加固：没有密钥、重试与错误提示 ——

/** 没有密钥就不发请求：这一轮失败（Chat 把它撤销），报错说清怎么补上。 */
function requiredKey(cfg: Config): string {
    if (!cfg.apiKey) throw new ApiError(missingKey());
    return cfg.apiKey;
}

const MAX_RETRIES = 2;

// Day 7：重试提示默认写到 stderr（灰色）；全屏界面会换成写进日志区
let notice = (text: string) => err('system', text);
export function setNoticeHandler(fn: (text: string) => void): void {
    notice = fn;
}

/** 连接失败和 408/409/429/5xx 最多重试两次。流开始之后就不再重试：重放会让已经显示的文字重复。 */
async function withRetry(baseUrl: string, signal: AbortSignal | undefined, send: () => Promise<Response>): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
        let res: Response;
        try {
            res = await send();
        } catch (e) {
            if (signal?.aborted) throw e;   // 用户取消：不报错也不重试
            const cause = (e as { cause?: { code?: string; message?: string } }).cause;   // 真正的原因（ECONNREFUSED……）藏在这里
            const reason = `无法连接 ${baseUrl}（${cause?.code ?? cause?.message ?? (e as Error).message}）`;
            if (attempt >= MAX_RETRIES) throw new ApiError(`${reason}\n提示：请检查 OPENAI_BASE_URL 的地址和端口是否写对、服务是否在运行`);
            await wait(backoff(attempt), reason, signal);
            continue;
        }
        trace('←', `HTTP ${res.status}`);
        if (res.ok) return res;
        const raw = await res.text();
        const payload = tryParse(raw);
        if (attempt >= MAX_RETRIES || !shouldRetry(res, payload)) throw new ApiError(describeHttpError(res.status, payload, raw || res.statusText));
        await wait(retryAfter(res.headers) ?? backoff(attempt), `HTTP ${res.status}`, signal);
    }
}

function shouldRetry(res: Response, payload: any): boolean {
    if (res.status === 429 && isQuota(payload)) return false;   // 额度用完，重试也没用
    return [408, 409, 429].includes(res.status) || res.status >= 500;
}

const isQuota = (p: any) => p?.error?.code === 'insufficient_quota' || p?.error?.type === 'insufficient_quota';

/** Retry-After 的秒数，只认 0–60 秒之内的值。 */
function retryAfter(h: Headers): number | undefined {
    const v = h.get('retry-after');
    const delay = Number(v) * 1000;
    return v && delay >= 0 && delay <= 60_000 ? delay : undefined;
}

// 约 0.5 秒、1 秒；随机缩短一点，免得许多客户端同时重试
const backoff = (n: number) => Math.min(500 * 2 ** n, 8000) * (1 - 0.25 * Math.random());

async function wait(ms: number, reason: string, signal?: AbortSignal): Promise<void> {
    trace('·', `${(ms / 1000).toFixed(1)} 秒后重试（${reason}）`);
    notice(`${(ms / 1000).toFixed(1)} 秒后重试（${reason}）…`);   // Day 7：见 setNoticeHandler
    await sleep(ms, undefined, { signal });   // Ctrl+C 或退出时立刻结束等待
}

function describeHttpError(status: number, payload: any, raw: string): string {
    const code = payload?.error?.code ?? payload?.code;
    let text = `HTTP ${status}：${errorMessage(payload, raw)}${code ? `（${code}）` : ''}`;
    if (status === 401 || status === 403) text += '\n提示：请检查 OPENAI_API_KEY 和 OPENAI_BASE_URL';
    else if (status === 404) text += '\n提示：请检查 OPENAI_MODEL，以及 OPENAI_BASE_URL 是否需要带 /v1';
    else if (status === 429 && isQuota(payload)) text += '\n提示：账户额度不足，请检查余额或账单，重试无济于事';
    else if (status === 429) text += '\n提示：请求太频繁，请稍后再试';
    else if (/context_length_exceeded|maximum context length/i.test(text)) text += '\n提示：对话超出了模型的上下文窗口，请 /compact 压缩历史，或 /reset 开始新对话';   // Day 5：/compact
    if (/does not support tools/i.test(text)) text += '\n提示：这个模型不支持工具调用，请换一个支持 tools 的模型';   // Day 2：工具调用
    return text;
}

/** Day 5：非流式的回复：坏 JSON 抛出 ApiError。 */
async function checkedJson(res: Response): Promise<any> {
    const raw = await res.text();
    const payload = tryParse(raw);
    if (payload === undefined) throw new ApiError(`服务器返回了无效的 JSON：${raw.slice(0, 80)}`);
    return payload;
}
