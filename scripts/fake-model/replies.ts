// 假模型说什么：回复的种类（文字、工具调用、原样的 SSE、HTTP 错误、挂起、断流），和把它们写成流式 SSE 或非流式补全的办法。
// 检查（scripts/check/）和测试都用这里的 text / tools / call 写「模型这一步回什么」。
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


type Json = Record<string, any>;

export const text = (t: string): FakeReply => ({ kind: 'text', text: t });

/** 模型这一步要调用的工具（可以并行好几个）。 */
export const tools = (...calls: FakeToolCall[]): FakeReply => ({ kind: 'tools', calls });

/** 一次工具调用。args 是对象时按 JSON 发出；是字符串时原样发出（可以是坏 JSON）。 */
export const call = (id: string, name: string, args: object | string = {}): FakeToolCall =>
    ({ id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });

export function split(text: string, size: number): string[] {
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
export function chunker(model: string) {
    const head = { id: nextId('chatcmpl-fake-'), object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
    const chunk = (delta: Json, finish: string | null = null) => frame({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] });
    const usage = (usage: Usage) => frame({ ...head, choices: [], usage });
    return { chunk, usage };
}

// 一次流式回复的 SSE 事件（每个元素是一个完整事件，含结尾空行）：text 到正文为止，rest 是其余的（工具调用、finish、用量、[DONE]）
export function sseParts(reply: TextReply | ToolsReply, model: string): { text: string[]; rest: string[] } {
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
