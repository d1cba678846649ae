// Day 1：SSE 解码与流式块累加。规则见 shared/spec/openai-stream.md（R4–R7）。
// 分三层：字节 → 行（LineSplitter）→ 事件（sseEvents）→ 一次回复（StreamAccumulator）。

/** 把任意切分的文本拆成行：CR、LF、CRLF 都算行尾，CRLF 可能被拆在两次读取之间。 */
export class LineSplitter {
    private parts: string[] = [];   // 未结束的那一行的碎片；只在遇到行尾时拼接一次，保证线性
    private pendingCR = false;      // 上一块以 \r 结尾：下一块开头的 \n 属于同一个行尾

    push(text: string): string[] {
        const lines: string[] = [];
        let start = 0;
        if (this.pendingCR && text.startsWith('\n')) start = 1;
        this.pendingCR = false;
        // 用原生 indexOf 找行尾，比逐字符循环快得多；两个位置各自缓存，整体仍是线性的
        let lf = text.indexOf('\n', start);
        let cr = text.indexOf('\r', start);
        while (lf !== -1 || cr !== -1) {
            const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr;
            this.parts.push(text.slice(start, end));
            lines.push(this.parts.length === 1 ? this.parts[0] : this.parts.join(''));
            this.parts = [];
            start = end + 1;
            if (end === cr) {
                if (start === text.length) this.pendingCR = true;
                else if (text.charCodeAt(start) === 10) start++;
                cr = text.indexOf('\r', start);
            }
            if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
        }
        if (start < text.length) this.parts.push(text.slice(start));
        return lines;
    }

    /** 流结束时还没遇到行尾的残余字符数（这部分事件按规则丢弃）。 */
    leftover(): number {
        return this.parts.reduce((n, p) => n + p.length, 0);
    }
}

export interface SseEvent {
    event: string;   // 事件类型，默认 'message'
    data: string;    // 多行 data 以 \n 拼接
    error?: string;  // 旧版 llama.cpp 的非标准 `error:` 字段
}

export interface SseStats {
    comments: string[];
    dispatched: number;
}

/**
 * WHATWG 事件流解析：空行派发事件；流末尾没以空行结束的事件丢弃（R4.6）。
 * 每次网络读取产出一批事件：逐个事件 await 的开销比解析本身还大。
 */
export async function* sseEvents(
    body: AsyncIterable<Uint8Array>,
    stats: SseStats = { comments: [], dispatched: 0 },
): AsyncGenerator<SseEvent[]> {
    const decoder = new TextDecoder('utf-8');   // 默认去掉开头的 BOM（R4.1）
    const splitter = new LineSplitter();
    let data: string[] = [];
    let event = '';
    let error: string | undefined;

    function handle(lines: string[]): SseEvent[] {
        const events: SseEvent[] = [];
        for (const line of lines) {
            if (line === '') {
                if (data.length === 0 && !event && error === undefined) continue;
                stats.dispatched++;
                events.push({ event: event || 'message', data: data.join('\n'), error });
                data = [];
                event = '';
                error = undefined;
                continue;
            }
            if (line.startsWith(':')) {
                stats.comments.push(line.slice(1).trim());
                continue;
            }
            const colon = line.indexOf(':');
            const name = colon === -1 ? line : line.slice(0, colon);
            let value = colon === -1 ? '' : line.slice(colon + 1);
            if (value.startsWith(' ')) value = value.slice(1);
            if (name === 'data') data.push(value);
            else if (name === 'event') event = value;
            else if (name === 'error') error = value;
            // id、retry 和其他字段：对聊天流没有意义，忽略
        }
        return events;
    }

    for await (const chunk of body) {
        yield handle(splitter.push(decoder.decode(chunk, { stream: true })));
    }
    yield handle(splitter.push(decoder.decode()));
}

// ---- 一次回复的累加 ----

export interface ToolCall {
    id: string;
    name: string;
    arguments: string;   // 原始拼接字符串，流结束后才解析
}

export interface Usage {
    prompt: number;
    completion: number;
    total: number;
}

export interface StreamResult {
    text: string;
    reasoning: string;
    reasoningField: '' | 'reasoning_content' | 'reasoning';
    refusal: string | null;
    toolCalls: ToolCall[];
    finishReason: string | null;
    usage: Usage | null;
    endedBy: 'done' | 'eof' | 'error';
    error: string | null;
    complete: boolean;
}

/** 一个增量：文字、思考或拒答，前端按类型上色显示。 */
export interface Delta {
    type: 'text' | 'reasoning' | 'refusal';
    text: string;
}

type Json = Record<string, any>;

const str = (v: unknown): v is string => typeof v === 'string';

/** 把流里的块（已解析的 JSON）累加成一次完整回复（R5.4–R7）。 */
export class StreamAccumulator {
    private text = '';
    private reasoning = '';
    private reasoningField: StreamResult['reasoningField'] = '';
    private refusal: string | null = null;
    private calls = new Map<number, ToolCall>();   // 内部键 → 调用，Map 保留首次出现的顺序
    private byIndex = new Map<number, number>();   // 流里的 index → 内部键
    private lastKey = -1;
    private finishReason: string | null = null;
    private topUsage: Json | null = null;
    private choiceUsage: Json | null = null;
    private groqUsage: Json | null = null;

    /** 处理一个块，返回要显示的增量。 */
    add(chunk: Json): Delta[] {
        if (chunk.usage) this.topUsage = chunk.usage;
        if (chunk.x_groq?.usage) this.groqUsage = chunk.x_groq.usage;
        const choices: Json[] = Array.isArray(chunk.choices) ? chunk.choices : [];
        const choice = choices.find((c) => (c?.index ?? 0) === 0);
        if (!choice) return [];
        if (choice.usage) this.choiceUsage = choice.usage;
        if (str(choice.finish_reason) && choice.finish_reason) this.finishReason = choice.finish_reason;
        const delta: Json = choice.delta ?? {};
        const out: Delta[] = [];
        if (str(delta.reasoning_content)) {
            this.reasoning += delta.reasoning_content;
            this.reasoningField = 'reasoning_content';
            if (delta.reasoning_content) out.push({ type: 'reasoning', text: delta.reasoning_content });
        } else if (str(delta.reasoning)) {
            this.reasoning += delta.reasoning;
            if (!this.reasoningField) this.reasoningField = 'reasoning';
            if (delta.reasoning) out.push({ type: 'reasoning', text: delta.reasoning });
        }
        if (str(delta.content) && delta.content) {
            this.text += delta.content;
            out.push({ type: 'text', text: delta.content });
        }
        if (str(delta.refusal) && delta.refusal) {
            this.refusal = (this.refusal ?? '') + delta.refusal;
            out.push({ type: 'refusal', text: delta.refusal });
        }
        if (Array.isArray(delta.tool_calls)) {
            for (const piece of delta.tool_calls) if (piece) this.addToolPiece(piece);
        }
        return out;
    }

    // R5.7：按 index 归属；index 缺失或为负时按 id，再不行就续到最近一个调用上
    private addToolPiece(p: Json): void {
        const id = str(p.id) && p.id ? p.id : '';
        let key: number | undefined;
        if (Number.isInteger(p.index) && p.index >= 0) {
            key = this.byIndex.get(p.index);
            const call = key === undefined ? undefined : this.calls.get(key);
            if (call && call.id && id && id !== call.id) key = undefined;   // 同一 index 上开始了新调用
            if (key === undefined) {
                key = this.newCall();
                this.byIndex.set(p.index, key);
            }
        } else if (id) {
            key = [...this.calls].find(([, c]) => c.id === id)?.[0] ?? this.newCall();
        } else {
            key = this.lastKey >= 0 ? this.lastKey : this.newCall();
        }
        this.lastKey = key;
        const call = this.calls.get(key)!;
        if (id && !call.id) call.id = id;
        const fn = p.function ?? {};
        if (str(fn.name) && fn.name && !call.name) call.name = fn.name;
        if (str(fn.arguments)) call.arguments += fn.arguments;
    }

    get finish(): string | null {
        return this.finishReason;
    }

    private newCall(): number {
        const key = this.calls.size;
        this.calls.set(key, { id: '', name: '', arguments: '' });
        return key;
    }

    result(endedBy: StreamResult['endedBy'], error: string | null): StreamResult {
        const u = this.topUsage ?? this.choiceUsage ?? this.groqUsage;
        const usage = u ? normalizeUsage(u) : null;
        return {
            text: this.text,
            reasoning: this.reasoning,
            reasoningField: this.reasoningField,
            refusal: this.refusal,
            toolCalls: [...this.calls.values()],
            finishReason: this.finishReason,
            usage,
            endedBy,
            error,
            complete: error === null && this.finishReason !== null,
        };
    }
}

export function normalizeUsage(u: Json): Usage {
    const prompt = Number(u.prompt_tokens) || 0;
    const completion = Number(u.completion_tokens) || 0;
    const total = Number.isFinite(u.total_tokens) ? Number(u.total_tokens) : prompt + completion;
    return { prompt, completion, total };
}

/** 错误体里的消息：error.message → error（字符串）→ message → 原文（R8.1/R8.3）。 */
export function errorMessage(payload: unknown, raw = ''): string {
    const p = payload as Json | null;
    if (p && typeof p === 'object') {
        if (p.error && typeof p.error === 'object' && str(p.error.message)) return p.error.message;
        if (str(p.error) && p.error) return p.error;
        if (str(p.message) && p.message) return p.message;
    }
    return raw.slice(0, 500);
}

export type ChatEvent = Delta | { type: 'end'; result: StreamResult };

/**
 * 读一个聊天流：边读边产出增量，最后产出 { type: 'end', result }。
 * 出错（流内错误、坏 JSON、断流）时 result.error 有值，不抛异常，由调用方决定怎么回滚。
 */
export async function* readChatStream(body: AsyncIterable<Uint8Array>, stats?: SseStats): AsyncGenerator<ChatEvent> {
    const acc = new StreamAccumulator();
    let endedBy: StreamResult['endedBy'] = 'eof';
    let error: string | null = null;
    try {
        reading: for await (const batch of sseEvents(body, stats)) {
            const deltas: Delta[] = [];
            for (const ev of batch) {
                const stop = handleEvent(ev, acc, deltas);
                if (stop === 'done') endedBy = 'done';
                else if (stop) error = stop;
                if (stop) {
                    yield* merge(deltas);
                    break reading;   // R5.1：[DONE] 之后的内容一律不读
                }
            }
            yield* merge(deltas);
        }
    } catch (e) {
        error = `读取流时出错：${(e as Error).message}`;
    }
    if (error !== null) endedBy = 'error';
    yield { type: 'end', result: acc.result(endedBy, error) };
}

/** 处理一个事件；返回 'done'、错误文本，或 undefined 表示继续。 */
function handleEvent(ev: SseEvent, acc: StreamAccumulator, deltas: Delta[]): string | undefined {
    if (ev.error !== undefined) return errorMessage(tryParse(ev.error), ev.error);
    if (ev.data === '[DONE]') return 'done';
    if (ev.data === '' && ev.event !== 'error') return undefined;
    const chunk = tryParse(ev.data);
    if (chunk === undefined || chunk === null || typeof chunk !== 'object') return `服务器返回了无效的 JSON：${ev.data.slice(0, 80)}`;
    deltas.push(...acc.add(chunk));
    if (ev.event === 'error' || chunk.error) return errorMessage(chunk, ev.data);
    if (acc.finish === 'error') return '服务器报告生成出错（finish_reason: error）';
    return undefined;
}

/** 同一次读取里相邻的同类增量合并成一个：显示效果相同，前端重绘次数少得多。 */
function merge(deltas: Delta[]): Delta[] {
    const out: Delta[] = [];
    for (const d of deltas) {
        const last = out[out.length - 1];
        if (last && last.type === d.type) last.text += d.text;
        else out.push({ ...d });
    }
    return out;
}

function tryParse(text: string): any {
    try {
        return JSON.parse(text);
    } catch {
        return undefined;
    }
}
