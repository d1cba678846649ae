// Day 5：历史压缩。历史太长时，请模型把较早的部分写成一条摘要，最近的几条消息原样留下。
import type { Config } from './config.ts';
import { streamChat, type Message } from './llm.ts';

const KEEP_RECENT = 6;   // 最近这么多条不压缩：模型看得到刚才说了什么
const SUMMARY_HEADER = '【之前对话的摘要】';
const PROMPT = '你是对话压缩器。把用户贴来的对话记录压缩成简洁的中文要点：保留目标、需求、决定和偏好；'
    + '文件路径、shell 命令、工具调用和结论；没做完的事。只输出要点列表。';

/** 阈值：GEEKAGENT_MAX_HISTORY 个字符，没设、不是正数时 4000。 */
function maxHistory(): number {
    const n = Number(process.env.GEEKAGENT_MAX_HISTORY);
    return n > 0 ? n : 4000;
}

/**
 * 历史加上这一句，是不是超过了阈值。量法：每条消息 JSON.stringify 的长度相加——不准（不是 token），但零依赖、
 * 对哪家模型都一样；准的做法要带上各家的分词表。
 */
export function tooLong(history: Message[], input: string): boolean {
    const size = history.reduce((n, m) => n + JSON.stringify(m).length, 0);
    return size + JSON.stringify({ role: 'user', content: input }).length > maxHistory();
}

/**
 * 切点：离末尾至少 KEEP_RECENT 条的最后一条 user 消息。只在 user 消息前面切：带 tool_calls 的 assistant 消息和它的
 * tool 结果因此永远在同一边——拆开了，服务商会拒绝之后的每一个请求。0 表示还没有可以切的地方。
 */
export function splitPoint(history: Message[]): number {
    for (let s = history.length - KEEP_RECENT; s > 0; s--) {
        if (history[s].role === 'user') return s;
    }
    return 0;
}

/** 压缩：切点之前的消息交给模型写摘要，换成开头的一条 system 消息。返回新的历史和一句说明；请求失败时抛出。 */
export async function compact(cfg: Config, history: Message[], signal: AbortSignal): Promise<{ history: Message[]; note: string }> {
    const s = splitPoint(history);
    if (s === 0) return { history, note: '没有可以压缩的旧消息' };
    const request: Message[] = [
        { role: 'system', content: PROMPT },
        { role: 'user', content: JSON.stringify(history.slice(0, s), null, 2) },
    ];
    // 不带工具：要的是一段文字，不是又一次调用。流式的请求照样能用，只是不显示，读完取整段文字
    const summary = (await lastValue(streamChat(cfg, request, [], signal))).text.trim();
    if (!summary) return { history, note: '模型没有给出摘要，保留原样' };
    return {
        history: [{ role: 'system', content: `${SUMMARY_HEADER}\n${summary}` }, ...history.slice(s)],
        note: `${s} 条旧消息已合并为 1 条摘要`,
    };
}

/** 把生成器读完，只要它最后 return 的值。 */
async function lastValue<T>(generator: AsyncGenerator<unknown, T>): Promise<T> {
    for (;;) {
        const step = await generator.next();
        if (step.done) return step.value;
    }
}
