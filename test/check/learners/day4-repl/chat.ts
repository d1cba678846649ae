// 第 2 天：工具循环。流里的 tool_calls 按 index 拼起来，执行后以 role: "tool" 回给模型，直到模型回答文字；一轮最多请求 5 次。
import { execTool, toolSchemas } from './tools.js';

const BASE_URL = process.env.OPENAI_BASE_URL ?? 'https://api.deepseek.com';
const MODEL = process.env.OPENAI_MODEL ?? 'deepseek-chat';
const MAX_TOOL_TURNS = 5;

type Call = { id: string; type: 'function'; function: { name: string; arguments: string } };
const history: any[] = [];

// 发一次请求，边收边交出文字；返回时 calls 里是拼好的工具调用
async function* request(calls: Call[]): AsyncGenerator<string, string> {
    const res = await fetch(`${BASE_URL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
        body: JSON.stringify({ model: MODEL, messages: history, tools: toolSchemas(), stream: true }),
    });
    if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}：${await res.text()}`);
    let answer = '';
    let buffer = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        const lines = buffer.split('\n');
        buffer = lines.pop() ?? '';
        for (const line of lines) {
            const data = line.trim();
            if (!data.startsWith('data:') || data === 'data: [DONE]') continue;
            const delta = JSON.parse(data.slice(5)).choices?.[0]?.delta ?? {};
            if (delta.content) {
                answer += delta.content;
                yield delta.content;
            }
            for (const piece of delta.tool_calls ?? []) {
                calls[piece.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
                if (piece.id) calls[piece.index].id = piece.id;
                if (piece.function?.name) calls[piece.index].function.name += piece.function.name;
                if (piece.function?.arguments) calls[piece.index].function.arguments += piece.function.arguments;
            }
        }
    }
    return answer;
}

export async function* streamReply(input: string): AsyncGenerator<string> {
    const start = history.length;
    history.push({ role: 'user', content: input });
    try {
        for (let turn = 0; turn < MAX_TOOL_TURNS; turn++) {
            const calls: Call[] = [];
            const answer = yield* request(calls);
            if (calls.length === 0) {
                history.push({ role: 'assistant', content: answer });
                return;
            }
            history.push({ role: 'assistant', content: answer || null, tool_calls: calls });
            for (const call of calls) {
                const result = await execTool(call.function.name, call.function.arguments);
                yield `\n[${call.function.name}] ${result}\n`;
                history.push({ role: 'tool', tool_call_id: call.id, content: result });
            }
        }
        yield '\n[工具调用太多次，停下了]';
        history.push({ role: 'assistant', content: '[工具调用太多次，停下了]' });
    } catch (e) {
        history.length = start;   // 整轮撤掉
        throw e;
    }
}
