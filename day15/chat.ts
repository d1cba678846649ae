// Day 1：对话。history 就是发给模型的 messages 数组：服务器不记得上一次请求，每轮把整个历史发出去，多轮记忆由此而来。
import { compact, splitPoint, tooLong } from './compact.ts';   // Day 5：历史压缩
import type { Config } from './config.ts';
import { streamChat, type Message } from './llm.ts';
import { redact } from './redact.ts';   // Day 9：系统提示发出之前脱敏
import type { Delta, Reply } from './sse.ts';
import { execTool, toOpenAITools } from './tools.ts';

// 交给前端显示的一块。Day 7：多了服务商报的用量，全屏界面的面板显示它（工具调用的进度行是第 2 天加的，不进历史）
export type ReplyPiece = Delta | { type: 'progress'; text: string } | { type: 'usage'; tokens: number };

// Day 2：一条用户消息最多请求这么多次：模型可能一直调用下去（反复读同一个文件、反复失败重试）
// Day 9：有了 TODO 规划，每做完一步还要交一次清单，一轮里的请求多了一倍多：5 次不够
const MAX_ROUNDS = 20;

export class Chat {
    history: Message[] = [];
    private readonly cfg: Config;
    // Day 9：两个由入口接上的钩子（index.ts），Chat 因此不认识具体的工具和文件：系统提示每次请求前重新拼（第 10、11 天：
    // AGENTS.md、技能说明），规划策略每次请求前决定要不要强制先调用某个工具（planning.ts 的 forceTodo）
    private systemPrompt: () => string = () => '';
    private forcedTool: (input: string, lastCalls: string[]) => string | null = () => null;

    constructor(cfg: Config) {
        this.cfg = cfg;
    }

    setSystemPrompt(fn: () => string): void { this.systemPrompt = fn; }

    setForcedTool(fn: (input: string, lastCalls: string[]) => string | null): void { this.forcedTool = fn; }

    reset(): void { this.history = []; }

    /** 一轮对话。任何失败（HTTP 错误、连不上、断流、Ctrl+C）都整轮撤掉：下一轮的请求里没有没人回答的问题，也没有半截回答。 */
    async *streamReply(input: string, signal: AbortSignal): AsyncGenerator<ReplyPiece> {
        yield* this.compactIfLong(input, signal);   // Day 5：历史太长时先压缩，再开始这一轮
        const start = this.history.length;
        this.history.push({ role: 'user', content: input });
        try {
            yield* this.toolLoop(input, signal);   // Day 9：带上你这句话，规划策略要看。Day 2：一问、若干轮工具调用、一答
        } catch (e) {
            this.history.length = start;
            throw e;
        }
    }

    /**
     * Day 2：工具循环。回复里没有工具调用，就是回答，这一轮结束；有就先存一条带 tool_calls 的 assistant 消息，
     * 逐个执行，每个结果存一条 tool 消息（tool_call_id 对上调用的 id），带着结果再请求一次。
     */
    private async *toolLoop(input: string, signal: AbortSignal): AsyncGenerator<ReplyPiece> {
        let lastCalls: string[] = [];   // Day 9：上一次请求调用了哪些工具（第一次是空的），给规划策略看
        for (let round = 0; round < MAX_ROUNDS; round++) {
            // Day 9：只在要强制的工具就在这次的 tools 里时才强制：第 11 天的技能可能把 todo_write 藏起来
            const tools = toOpenAITools();
            const force = this.forcedTool(input, lastCalls);
            const offered = force && tools.some((t) => (t as { function: { name: string } }).function.name === force) ? force : undefined;
            const reply = yield* streamChat(this.cfg, this.request(), tools, signal, offered);
            if (reply.usage) yield { type: 'usage', tokens: reply.usage };   // Day 7：用量面板
            if (reply.toolCalls.length === 0) {
                this.history.push({ role: 'assistant', content: reply.text });
                return;
            }
            this.history.push(assistantWithCalls(reply));
            lastCalls = reply.toolCalls.map((c) => c.name);   // Day 9：给下一次请求前的规划策略看
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

    /** Day 9：发出去的消息：系统提示放在最前面，后面是历史。它只在请求里、也只在这里脱敏：AGENTS.md、技能说明里都可能写着密钥。 */
    private request(): Message[] {
        const system = redact(this.systemPrompt());
        return system ? [{ role: 'system', content: system }, ...this.history] : this.history;
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
