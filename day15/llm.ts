// Day 1：手写的 OpenAI 兼容客户端：把整个历史 POST 到 {base}/chat/completions（stream: true），回复交给 sse.ts 读。
import { setTimeout as sleep } from 'node:timers/promises';
import { err } from './color.ts';
import { MISSING_KEY, type Config } from './config.ts';
import { providerMessage, readChatStream, type Delta, type Reply } from './sse.ts';

export interface Message {
    role: 'system' | 'user' | 'assistant' | 'tool';   // Day 5：system 是压缩后放在开头的摘要
    content: string | null;   // Day 2：只有工具调用、没有文字的 assistant 消息是 null
    tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    tool_call_id?: string;    // tool 消息回答的是哪个调用
    reasoning_content?: string;
}

/** 一次流式请求：边收边产出增量，读完返回整个回复。 */
export async function* streamChat(
    cfg: Config, messages: Message[], tools: object[], signal: AbortSignal, force?: string,
): AsyncGenerator<Delta, Reply> {
    if (!cfg.apiKey) throw new Error(MISSING_KEY);   // 没有密钥就一个请求也不发
    // Day 2：请求带上工具；一个工具也没有时不发 tools 字段（空数组会被拒绝）
    // Day 7：stream_options 请服务商在流的最后一块里报用量（全屏界面的面板显示它）
    const body = { model: cfg.model, messages, ...(tools.length ? { tools } : {}), stream: true, stream_options: { include_usage: true } };
    // Day 9：force 是这一次必须先调用的工具（tool_choice），它得在 tools 里，否则服务商拒绝整个请求
    const choice = force ? { tool_choice: { type: 'function', function: { name: force } } } : {};
    const res = await post(cfg, JSON.stringify({ ...body, ...choice }), signal);
    return yield* readChatStream(res.body!);
}

// 连不上、429（限流）、5xx（服务器自己的问题）多半过一会儿就好，最多重试两次，等 1 秒、2 秒；400、401、404 是请求本身的问题，
// 重发还是同样的答案。流开始之后不再重试：已经显示的文字会再显示一遍
const RETRIES = 2;

async function post(cfg: Config, body: string, signal: AbortSignal): Promise<Response> {
    const headers = { 'Authorization': `Bearer ${cfg.apiKey}`, 'Content-Type': 'application/json' };
    for (let attempt = 0; ; attempt++) {
        let res: Response | undefined;
        let problem: string;
        try {
            res = await fetch(`${cfg.baseUrl}/chat/completions`, { method: 'POST', headers, body, signal });
            if (res.ok) return res;
            problem = httpError(res.status, await res.text());
        } catch (e) {
            if (signal.aborted) throw e;   // Ctrl+C：不重试
            const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message;   // ECONNREFUSED 这类原因在 cause 里
            problem = `无法连接 ${cfg.baseUrl}（${cause}）\n提示：请检查 OPENAI_BASE_URL 的地址和端口、服务是否在运行`;
        }
        const retryable = !res || res.status === 429 || res.status >= 500;
        if (!retryable || attempt === RETRIES) throw new Error(problem);
        err('system', `${2 ** attempt} 秒后重试（${res ? `HTTP ${res.status}` : '连不上'}）…`);
        await sleep(2 ** attempt * 1000, undefined, { signal });   // 等待中按 Ctrl+C 立刻结束
    }
}

/** HTTP 错误：状态码和服务商的原话；最常见的两种再加一行提示。 */
function httpError(status: number, raw: string): string {
    let hint = '';
    if (status === 401 || status === 403) hint = '\n提示：请检查 OPENAI_API_KEY 和 OPENAI_BASE_URL';
    if (status === 404) hint = '\n提示：请检查 OPENAI_MODEL，以及 OPENAI_BASE_URL 是否需要带 /v1';
    return `HTTP ${status}：${providerMessage(raw)}${hint}`;
}
