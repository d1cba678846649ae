// Day 1：读聊天流。三层，每层只做一件事：字节 → 行（lines）→ 事件（sseEvents）→ 一次回复（readChatStream）。
// 一次网络读取和一个事件毫无关系：一次读取可能停在 JSON 中间、一个汉字的三个字节中间，也可能一次带来几百个事件。

export type Delta = { type: 'text' | 'reasoning'; text: string };   // 正文或思考内容，前端按类型上色

// Day 7：usage 是服务商报的这次请求用掉的 token 数（报了才有）。思考原文和工具调用是第 2 天加的
export type Reply = { text: string; finishReason: string; reasoning: string; toolCalls: ToolCall[]; usage?: number };

// Day 2：一个工具调用。arguments 是原样拼接的字符串，流结束后才解析：半截的 {"ci 不是 JSON
export type ToolCall = { id: string; name: string; arguments: string };

/** 第一层：字节解码成文字，切成行。没遇到换行的半行留到下一块；CRLF 的 \r 跟着半行留下，和下一块开头的 \n 拼上。 */
async function* lines(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
    const decoder = new TextDecoder();   // stream: true：被切开的多字节字符留到下一块再解码，中文和 emoji 不会乱码
    let rest = '';
    try {
        for await (const chunk of body) {
            const parts = (rest + decoder.decode(chunk, { stream: true })).split('\n');
            rest = parts.pop()!;
            for (const part of parts) yield part.endsWith('\r') ? part.slice(0, -1) : part;
        }
    } catch (e) {
        throw new Error(`读取回复时连接断了：${(e as Error).message}`);
    }
}

/** 第二层：行拼成事件。一行一个「字段: 值」，空行结束一个事件；聊天流只用 data 字段，多行的 data 以 \n 相连。 */
async function* sseEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
    let data: string[] = [];
    for await (const line of lines(body)) {
        if (line === '') {
            if (data.length) yield data.join('\n');
            data = [];
        } else if (line.startsWith('data:')) {
            data.push(line.slice(5).replace(/^ /, ''));
        }
        // 其余的行：冒号开头的注释（服务器保活用）、event、id 这些字段，聊天流用不上
    }
    // 流结束时没等到空行的半个事件丢掉：那是断流时切下的半截
}

/** 第三层：每个事件是一块 JSON，把其中的增量累加成一次回复，同时一块一块交给前端显示。 */
export async function* readChatStream(body: AsyncIterable<Uint8Array>): AsyncGenerator<Delta, Reply> {
    const reply: Reply = { text: '', finishReason: '', reasoning: '', toolCalls: [] };
    const calls = new Map<number, ToolCall>();   // Day 2：流里的 index → 调用
    for await (const data of sseEvents(body)) {
        if (data === '[DONE]') break;   // OpenAI 的结束标记，不是 JSON
        const chunk = parseChunk(data);
        const choice = chunk.choices?.[0];   // 只带用量的块没有 choices
        const usage = chunk.usage ?? choice?.usage;   // Day 7：用量在最后一块的顶层（Kimi 放在 choice 里）
        if (usage?.total_tokens) reply.usage = usage.total_tokens;
        if (choice?.finish_reason) reply.finishReason = choice.finish_reason;
        const delta = choice?.delta ?? {};
        // 思考内容（DeepSeek、Kimi 的 reasoning_content）只显示，不进历史
        if (delta.reasoning_content) yield { type: 'reasoning', text: delta.reasoning_content };
        reply.reasoning += delta.reasoning_content ?? '';   // Day 2：带工具调用的回复要把它原样带回（chat.ts）
        for (const piece of delta.tool_calls ?? []) addToolPiece(calls, piece);
        if (delta.content) {
            reply.text += delta.content;
            yield { type: 'text', text: delta.content };
        }
    }
    // 断流：连接可能半路关掉而不报错。见到 finish_reason 才算说完（有的服务不发 [DONE]），否则这一轮算失败
    if (!reply.finishReason) throw new Error('流在回复完成之前就结束了（没有见到 finish_reason）');
    reply.toolCalls = [...calls.values()];   // 按第一次出现的顺序
    return reply;
}

/**
 * Day 2：一个调用分成许多片到达：第一片带 index、id 和名字，后面的只带 index 和一小段参数。片按 index 归到各自的调用上
 * （index 只当键、不当数组下标：有的服务第一个调用就是 index 1）。id 和名字取第一个非空值：通义千问的续片带着 "id": ""，
 * 不能把真的 id 盖掉；vLLM 的第一片没有 arguments，Ollama 一片就是一整个调用，都走同一条路。参数原样追加（+=，不是覆盖）。
 */
function addToolPiece(calls: Map<number, ToolCall>, piece: any): void {
    let call = calls.get(piece.index);
    if (!call) calls.set(piece.index, call = { id: '', name: '', arguments: '' });
    call.id ||= piece.id ?? '';
    call.name ||= piece.function?.name ?? '';
    call.arguments += piece.function?.arguments ?? '';
}

function parseChunk(data: string): any {
    let chunk;
    try {
        chunk = JSON.parse(data);
    } catch {
        throw new Error(`服务器发来的不是 JSON：${data.slice(0, 80)}`);
    }
    // HTTP 200 已经发出之后，服务器只能在流里报错：{"error":{"message":…}}
    if (chunk?.error) throw new Error(`服务器在流里报错：${providerMessage(data)}`);
    return chunk ?? {};
}

/** 服务商自己的错误原话（比笼统的「出错了」有用）：OpenAI 格式取 error.message，别的格式（纯文本、网页）显示原文开头。 */
export function providerMessage(raw: string): string {
    try {
        const message = JSON.parse(raw)?.error?.message;
        if (typeof message === 'string' && message) return message;
    } catch { /* 不是 JSON：显示原文 */ }
    return raw.replace(/\s+/g, ' ').trim().slice(0, 300);
}
