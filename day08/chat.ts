// Day 1：对话。history 就是发给模型的 messages 数组：服务器不记得上一次请求，每轮把整个历史发出去，多轮记忆由此而来。
import { compact, splitPoint, tooLong } from './compact.ts';   // Day 5：历史压缩
import type { Config } from './config.ts';
import { streamChat, type Message } from './llm.ts';
import type { Delta, Reply } from './sse.ts';
import { execTool, toOpenAITools } from './tools.ts';

// 交给前端显示的一块。Day 7：多了服务商报的用量，全屏界面的面板显示它（工具调用的进度行是第 2 天加的，不进历史）
export type ReplyPiece = Delta | { type: 'progress'; text: string } | { type: 'usage'; tokens: number };

// Day 2：一条用户消息最多请求这么多次：模型可能一直调用下去（反复读同一个文件、反复失败重试）
const MAX_ROUNDS = 5;

export class Chat {
    history: Message[] = [];
    private readonly cfg: Config;

    constructor(cfg: Config) {
        this.cfg = cfg;
    }

    reset(): void { this.history = []; }

    /** 一轮对话。任何失败（HTTP 错误、连不上、断流、Ctrl+C）都整轮撤掉：下一轮的请求里没有没人回答的问题，也没有半截回答。 */
    async *streamReply(input: string, signal: AbortSignal): AsyncGenerator<ReplyPiece> {
        yield* this.compactIfLong(input, signal);   // Day 5：历史太长时先压缩，再开始这一轮
        const start = this.history.length;
        this.history.push({ role: 'user', content: input });
        try {
            yield* this.toolLoop(signal);   // Day 2：一问、若干轮工具调用、一答
        } catch (e) {
            this.history.length = start;
            throw e;
        }
    }

    /**
     * Day 2：工具循环。回复里没有工具调用，就是回答，这一轮结束；有就先存一条带 tool_calls 的 assistant 消息，
     * 逐个执行，每个结果存一条 tool 消息（tool_call_id 对上调用的 id），带着结果再请求一次。
     */
    private async *toolLoop(signal: AbortSignal): AsyncGenerator<ReplyPiece> {
        for (let round = 0; round < MAX_ROUNDS; round++) {
            const reply = yield* streamChat(this.cfg, this.history, toOpenAITools(), signal);
            if (reply.usage) yield { type: 'usage', tokens: reply.usage };   // Day 7：用量面板
            if (reply.toolCalls.length === 0) {
                this.history.push({ role: 'assistant', content: reply.text });
                return;
            }
            this.history.push(assistantWithCalls(reply));
            // 一个接一个执行：结果的顺序和调用的顺序一致，两个确认问题也不会同时出现
            for (const call of reply.toolCalls) {
                const output = await execTool(call.name, call.arguments, signal);
                this.history.push({ role: 'tool', tool_call_id: call.id, content: output });
                yield { type: 'progress', text: `调用工具 ${call.name} → ${output.slice(0, 200).replace(/\s*\n\s*/g, ' ⏎ ')}` };
            }
        }
        // 到了上限：这句话也存成 assistant 消息，历史仍以回答结尾，下一轮的请求依然合法
        const notice = '工具调用轮数过多，已停止';
        this.history.push({ role: 'assistant', content: notice });
        yield { type: 'progress', text: notice };
    }

    /** Day 5：把较早的历史换成一条摘要，返回一句说明（/compact 直接调用它）。摘要请求失败时抛出，历史不变。 */
    async compact(signal: AbortSignal): Promise<string> {
        const done = await compact(this.cfg, this.history, signal);
        this.history = done.history;
        return done.note;
    }

    /**
     * Day 5：连同这一句，历史超过阈值、又有可以切的地方，就先压缩（切点在这一句之前，这一轮失败回滚时压缩照样留着）。
     * 压缩失败不影响这一轮：保留原样，照常请求。还没有可切的地方（前几轮、只有一轮特别长）时不压缩，也不每轮多一行空话。
     */
    private async *compactIfLong(input: string, signal: AbortSignal): AsyncGenerator<ReplyPiece> {
        if (!tooLong(this.history, input) || splitPoint(this.history) === 0) return;
        const note = await this.compact(signal).catch((e: Error) => `失败，保留原样（${e.message}）`);
        yield { type: 'progress', text: `历史压缩：${note}` };
    }
}

/**
 * Day 2：带工具调用的 assistant 消息。思考模式的 DeepSeek 要求把这一次的 reasoning_content 原样带回，否则下一个请求回 400；
 * 没有思考内容时不带这个字段。空参数存成 "{}"：有的服务商拒绝空字符串。
 */
function assistantWithCalls(reply: Reply): Message {
    return {
        role: 'assistant',
        content: reply.text || null,
        tool_calls: reply.toolCalls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments || '{}' },
        })),
        ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
    };
}
