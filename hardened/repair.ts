// —— 加固：整理读进来的存档 ——
// Day 6：/load 读进来的消息先整理一遍再用。存档可能被手改过、被别的工具写坏过；
// 原样发出去的话，服务商每一轮都回 400，这个对话就再也用不了了。
// 只修类型和配对，不猜内容：角色认不出的存档在 sessions.ts 里整体拒绝。
import type { Message } from './llm.ts';

const MISSING = '（存档里缺少这次调用的结果）';

/** 不是字符串的内容变成文字：数字、对象原样转成 JSON，null 变成空串。 */
function text(value: unknown): string {
    if (typeof value === 'string') return value;
    return value == null ? '' : JSON.stringify(value);
}

function validCalls(value: unknown): NonNullable<Message['tool_calls']> {
    if (!Array.isArray(value)) return [];
    const seen = new Set<string>();
    const calls: NonNullable<Message['tool_calls']> = [];
    for (const call of value) {
        const id = call?.id;
        const name = call?.function?.name;
        if (typeof id !== 'string' || !id || seen.has(id) || typeof name !== 'string' || !name) continue;
        seen.add(id);
        calls.push({ id, type: 'function', function: { name, arguments: text(call.function.arguments) || '{}' } });
    }
    return calls;
}

function assistant(m: any): Message {
    const calls = validCalls(m.tool_calls);
    const fixed: Message = { role: 'assistant', content: calls.length && m.content == null ? null : text(m.content) };
    if (calls.length) fixed.tool_calls = calls;
    if (typeof m.reasoning_content === 'string') fixed.reasoning_content = m.reasoning_content;
    return fixed;
}

/**
 * 整理一个对话：内容不是字符串的转成文字；没有对应调用的 tool 消息丢掉；
 * 调用了工具却没有结果的，补一条说明结果缺失的 tool 消息。返回整理后的消息和改动的条数。
 */
export function repairMessages(list: any[]): { messages: Message[]; fixes: number } {
    const messages: Message[] = [];
    let fixes = 0;
    let waiting: string[] = [];   // 上一条 assistant 发起、还没有结果的调用
    const fillMissing = () => {
        for (const id of waiting) messages.push({ role: 'tool', tool_call_id: id, content: MISSING });
        fixes += waiting.length;
        waiting = [];
    };
    for (const m of list) {
        let fixed: Message | null;
        if (m.role === 'tool') {
            const answers = typeof m.tool_call_id === 'string' && waiting.includes(m.tool_call_id);
            fixed = answers ? { role: 'tool', tool_call_id: m.tool_call_id, content: text(m.content) } : null;
            if (fixed) waiting = waiting.filter((id) => id !== m.tool_call_id);
        } else {
            fillMissing();
            // developer 是新版 OpenAI 对 system 的叫法；function 是早已废弃的格式，丢掉
            if (m.role === 'assistant') fixed = assistant(m);
            else fixed = m.role === 'function' ? null : { role: m.role === 'user' ? 'user' : 'system', content: text(m.content) };
            if (fixed?.tool_calls) waiting = fixed.tool_calls.map((c) => c.id);
        }
        if (fixed) messages.push(fixed);
        if (JSON.stringify(fixed) !== JSON.stringify(m)) fixes++;
    }
    fillMissing();
    return { messages, fixes };
}
