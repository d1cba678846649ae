// Day 1：读聊天流。三层：文本 → 行（LineSplitter）→ 事件（sseEvents）→ 一次回复（readChatStream）。
import { trace } from './trace.ts';

export type SseEvent = { event: string; data: string };   // 事件类型默认 'message'；多行 data 以 \n 拼接

/** 事件流解析：一行一个字段，空行派发事件；流结束时没等到空行的事件丢弃。每次读取产出一批：逐个事件 await 比解析本身还慢。 */
export async function* sseEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent[]> {
    const decoder = new TextDecoder('utf-8');   // 去掉开头的 BOM；被切开的多字节字符留到下一块再解码
    const splitter = new LineSplitter();        // 一行可能分在几块里到达：半行留到下一块
    const fields = new EventFields();
    for await (const chunk of body) {
        const events: SseEvent[] = [];
        for (const line of splitter.push(decoder.decode(chunk, { stream: true }))) {
            if (line === '') fields.dispatch(events);   // 空行：收到的字段组成一个事件
            else fields.add(line);                      // 「名字: 值」，聊天流里几乎都是「data: {…}」
        }
        yield events;
    }
}

/** Day 2：一个工具调用。arguments 是原样拼接的字符串，流结束后才解析：半截的字符串不是 JSON。 */
export interface ToolCall {
    id: string;
    name: string;
    arguments: string;
}

/** Day 7：服务商报告的用量。 */
export interface Usage {
    prompt: number;
    completion: number;
    total: number;
}

export interface StreamResult {
    text: string;
    reasoning: string;
    refusal: string | null;
    toolCalls: ToolCall[];   // 按首次出现的顺序
    finishReason: string | null;
    usage: Usage | null;   // Day 7：服务商没报告时为 null（有的服务不理会 stream_options）
    error: string | null;
    complete: boolean;   // 没有出错，并且见到了 finish_reason
}

export type Delta = { type: 'text' | 'reasoning' | 'refusal'; text: string };   // 文字、思考或拒答，前端按类型上色显示

/** 读一个聊天流：边读边产出增量，读完返回整个回复。出错（流内错误、坏 JSON、断流）不抛异常，记在 result.error。 */
export async function* readChatStream(body: AsyncIterable<Uint8Array>): AsyncGenerator<Delta, StreamResult> {
    const acc = new StreamAccumulator();
    let error: string | null = null;
    try {
        reading: for await (const events of sseEvents(body)) {
            for (const ev of events) {
                if (ev.data === '[DONE]') break reading;   // 流的正常结尾，之后的内容一律不读
                error = addEvent(ev, acc);   // data 是一个 JSON 块，累加进回复；流内错误、坏 JSON 返回错误文本
                if (error !== null) break reading;
            }
            yield* acc.ready();   // 半个 emoji 留到下一批
        }
    } catch (e) {
        error = `读取流时出错：${(e as Error).message}`;
    }
    yield* acc.deltas.splice(0);
    return Object.assign(acc.result, { error, complete: error === null && acc.result.finishReason !== null });
}

/** 把流里的块（已解析的 JSON）累加成一次回复。字段缺失、为 null 或类型不对都当作没有。 */
class StreamAccumulator {
    readonly result: StreamResult = { text: '', reasoning: '', refusal: null, toolCalls: [], finishReason: null, usage: null, error: null, complete: false };   // Day 2：多了思考原文和工具调用
    deltas: Delta[] = [];   // 还没交给前端的增量

    add(chunk: Json): void {
        const choice = firstChoice(chunk);
        this.noteUsage(chunk, choice);   // Day 7：用量
        if (!choice) return;
        if (str(choice.finish_reason) && choice.finish_reason) this.result.finishReason = choice.finish_reason;
        const delta: Json = choice.delta ?? {};
        if (str(delta.reasoning_content)) {   // DeepSeek 的思考内容：要随工具调用原样带回，所以记下全文
            this.result.reasoning += delta.reasoning_content;
            this.emitMerged('reasoning', delta.reasoning_content);
        }
        if (str(delta.content)) {
            this.result.text += delta.content;
            this.emitMerged('text', delta.content);
        }
        if (str(delta.refusal)) this.addRefusal(delta.refusal);
        if (Array.isArray(delta.tool_calls)) {   // Day 2：工具调用一片一片到达，归到各自的调用上
            for (const piece of delta.tool_calls) if (piece) this.addToolPiece(piece);
        }
    }

    // —— 加固：各家服务商的字段差异、增量合并、分行分字段的细节与流内错误 ——

    /** 拒答（OpenAI 的 refusal 字段）另记一份，也照常显示。 */
    private addRefusal(text: string): void {
        this.result.refusal = (this.result.refusal ?? '') + text;
        this.emitMerged('refusal', text);
    }

    /** 相邻的同类增量合并成一个：显示效果相同，写终端的次数少得多。 */
    private emitMerged(type: Delta['type'], text: string): void {
        const last = this.deltas[this.deltas.length - 1];
        if (last?.type === type) last.text += text;
        else if (text) this.deltas.push({ type, text });
    }

    /**
     * 这一批可以显示的增量。emoji 这类字符是两个 UTF-16 单元，服务商可能把它们分在两个事件里发：
     * 前一半单独写到终端会变成 �。所以最后一个增量若以前一半（高代理）结尾，这一半留在 deltas 里，和下一批的后一半
     * 合在一起再交出；读完时 readChatStream 交出剩下的全部（真的只有半个字时照原样显示）。回复的原文不受影响。
     */
    ready(): Delta[] {
        const batch = this.deltas.splice(0);
        const last = batch[batch.length - 1];
        const code = last ? last.text.charCodeAt(last.text.length - 1) : 0;
        if (code < 0xd800 || code > 0xdbff) return batch;
        this.deltas.push({ type: last.type, text: last.text.slice(-1) });
        last.text = last.text.slice(0, -1);
        if (!last.text) batch.pop();
        return batch;
    }

    // Day 7：用量可能在顶层（以最后一个为准），或在 choice 里（Moonshot，之后还在顶层重复一次，只算一次）
    private topUsage: Json | null = null;
    private choiceUsage: Json | null = null;

    private noteUsage(chunk: Json, choice: Json | undefined): void {
        if (!chunk.usage && !choice?.usage) return;
        if (chunk.usage) this.topUsage = chunk.usage;
        if (choice?.usage) this.choiceUsage = choice.usage;
        this.result.usage = normalizeUsage((this.topUsage ?? this.choiceUsage)!);
    }

    private byIndex = new Map<unknown, ToolCall>();   // Day 2：流里的 index → 调用

    /** Day 2：工具调用片段按 index 归到各自的调用上（不按数组位置：Copilot 的第一个调用就是 index 1）。 */
    private addToolPiece(p: Json): void {
        let call = this.byIndex.get(p.index);
        if (!call) this.byIndex.set(p.index, call = this.newCall());
        // id 和名字只取第一个非空值：续接片段里的 "id": ""（Qwen）、"name": "" 不覆盖，名字也不拼接
        if (str(p.id) && p.id && !call.id) call.id = p.id;
        const fn = p.function ?? {};
        if (str(fn.name) && fn.name && !call.name) call.name = fn.name;
        if (str(fn.arguments)) call.arguments += fn.arguments;
    }

    private newCall(): ToolCall {
        const call = { id: '', name: '', arguments: '' };
        this.result.toolCalls.push(call);
        return call;
    }
}

type Json = Record<string, any>;
const str = (v: unknown): v is string => typeof v === 'string';

// choices 可能缺失或为空（只带用量的块）；我们只要一个回答，只看 index 为 0 的那个
const firstChoice = (chunk: Json): Json | undefined => (Array.isArray(chunk.choices) ? chunk.choices : []).find((c: Json) => (c?.index ?? 0) === 0);

/** 把任意切分的文本拆成行：CR、LF、CRLF 都算行尾，CRLF 可能被拆在两次读取之间。 */
export class LineSplitter {
    private rest = '';        // 还没遇到行尾的半行：只往后拼接、从不重新扫描，所以一行分成很多块到达也是线性的
    private skipLF = false;   // 上一块以 \r 结尾：这一块开头的 \n 和它是同一个行尾

    push(text: string): string[] {
        if (text === '') return [];   // 空块（只有半个多字节字符时也会这样）不能清掉 skipLF
        if (this.skipLF && text.startsWith('\n')) text = text.slice(1);
        this.skipLF = text.endsWith('\r');
        const lines = text.split(/\r\n|\r|\n/);
        lines[0] = this.rest + lines[0];
        this.rest = lines.pop()!;
        return lines;
    }
}

/** 正在收的一个事件的字段。 */
class EventFields {
    private data: string[] = [];
    private event = '';

    /** 冒号开头是注释（保活用）；没有冒号时整行是字段名、值为空；冒号后的一个空格不算值。 */
    add(line: string): void {
        if (line.startsWith(':')) return;
        trace('←', line);
        const colon = line.indexOf(':');
        const name = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (name === 'data') this.data.push(value);
        else if (name === 'event') this.event = value;   // id、retry 等其他字段对聊天流没有意义
    }

    /** 连续的空行无事发生：没有字段就不派发。 */
    dispatch(events: SseEvent[]): void {
        if (!this.data.length && !this.event) return;
        events.push({ event: this.event || 'message', data: this.data.join('\n') });
        [this.data, this.event] = [[], ''];
    }
}

/** 处理一个事件；返回错误文本，或 null 表示继续。 */
function addEvent(ev: SseEvent, acc: StreamAccumulator): string | null {
    if (ev.data === '') return null;
    const chunk = tryParse(ev.data);
    if (chunk === null || typeof chunk !== 'object') return `服务器返回了无效的 JSON：${ev.data.slice(0, 80)}`;
    acc.add(chunk);
    if (chunk.error) return errorMessage(chunk, ev.data);   // 之后即使有 [DONE] 也算出错
    return null;
}

/**
 * 错误体里的消息：error.message（OpenAI 的格式）；不是这个格式时，error、message 里的字符串都要
 * （{"error":"SyntaxError","message":"…"} 只给 error 就丢了原因）；都没有就给原文（HTML、纯文本）。服务商的原话不换成笼统的说法；
 * 不是 OpenAI 格式的原文可能是一整个网页，空白压成一个空格、只留开头。
 */
export function errorMessage(payload: any, raw = ''): string {
    if (str(payload?.error?.message) && payload.error.message) return payload.error.message;
    const said = [payload?.error, payload?.message].filter((m) => str(m) && m);
    const text = said.length ? [...new Set(said)].join('：') : raw.replace(/\s+/g, ' ').trim();
    return text.length > ERROR_CHARS ? `${text.slice(0, ERROR_CHARS)}…` : text;
}

const ERROR_CHARS = 500;

/** Day 7：没有 total_tokens 时用两者之和；给了就照用，不假设它等于两者之和。 */
export function normalizeUsage(u: Json): Usage {
    const prompt = Number(u.prompt_tokens) || 0;
    const completion = Number(u.completion_tokens) || 0;
    const total = Number.isFinite(u.total_tokens) ? Number(u.total_tokens) : prompt + completion;
    return { prompt, completion, total };
}

export function tryParse(text: string): any {
    try { return JSON.parse(text); } catch { return undefined; }
}
