// Day 5：历史压缩。历史太长时，让模型把较早的部分总结成一条摘要，最近的消息原样保留。
import type { Message } from './llm.ts';

export const SUMMARY_HEADER = '【之前对话的摘要】';
export const KEEP_RECENT = 6;

export const COMPACT_PROMPT = '你是对话压缩器。把用户贴来的对话记录压缩成简洁的中文要点：'
    + '保留目标、需求、决定和偏好；文件路径、shell 命令、工具调用和结论；未完成的事项。只输出要点列表。';

/** 阈值：GEEKAGENT_MAX_HISTORY 个字符，非正数或不是数字时用 4000。 */
export function maxHistory(): number {
    const n = Number(process.env.GEEKAGENT_MAX_HISTORY);
    return Number.isFinite(n) && n > 0 ? n : 4000;
}

export function historySize(history: Message[]): number {
    return history.reduce((n, m) => n + JSON.stringify(m).length, 0);
}

/**
 * 切分点：不大于 length − 6 的最大的 user 消息下标。只在 user 消息前切，
 * 带 tool_calls 的 assistant 消息和它的 tool 消息永远在同一边，否则严格的服务商会拒绝之后的每个请求。
 * 返回 0 表示没有可以压缩的部分。
 */
export function splitPoint(history: Message[]): number {
    for (let s = history.length - KEEP_RECENT; s > 0; s--) {
        if (history[s].role === 'user') return s;
    }
    return 0;
}

export function summaryRequest(old: Message[]): Message[] {
    return [
        { role: 'system', content: COMPACT_PROMPT },
        { role: 'user', content: JSON.stringify(old, null, 2) },
    ];
}
