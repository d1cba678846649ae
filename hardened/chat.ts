// Day 1：对话。history 就是发给模型的 messages 数组；每轮把完整历史发出去，多轮记忆由此而来。
import { randomBytes } from 'node:crypto';
import type { Config } from './config.ts';
import { historySize, maxHistory, splitPoint, summaryRequest, SUMMARY_HEADER } from './compact.ts';
import { ApiError, complete, streamChat, type Message } from './llm.ts';
import { redact } from './redact.ts';
import type { Delta, StreamResult, ToolCall, Usage } from './sse.ts';
import { execTool, toOpenAITools, truncateOutput } from './tools.ts';

export type ReplyPiece = Delta | { type: 'notice' | 'progress'; text: string };   // Day 2：多了黄色的进度行；提示和进度都不进历史
const SUB_AGENT_PROMPT = '你是子 Agent，只完成交给你的这一个子任务；返回主 Agent 可以直接使用的简明结果，不要寒暄。';   // Day 9：子 Agent

export class Chat {
    history: Message[] = [];
    private onUsage: (usage: Usage) => void = () => {};
    private systemPrompt: () => string = () => '';   // Day 9：见 setSystemPrompt
    private turnSignal?: AbortSignal;   // 本轮的取消信号：工具里发出的子 Agent 请求也要跟着取消
    private forcedTool: (input: string, lastCalls: string[]) => string | null = () => null;
    private readonly config: () => Config;   // 每次请求时取：信任问题答完，模型地址可能换成 .env 的（index.ts）

    constructor(config: () => Config) { this.config = config; }

    /** Day 5：把较早的历史压缩成一条摘要，返回说明文字。失败时抛出，由调用方决定怎么提示。 */
    async compact(signal?: AbortSignal): Promise<string> {
        const s = splitPoint(this.history);
        if (s === 0) return '没有可以压缩的旧消息';
        const { content, usage } = await complete(this.config(), summaryRequest(this.history.slice(0, s)), signal);
        if (usage) this.onUsage(usage);
        if (!content.trim()) return '模型没有给出摘要，保留原样';
        this.history = [{ role: 'system', content: `${SUMMARY_HEADER}\n${content.trim()}` }, ...this.history.slice(s)];
        return `${s} 条旧消息已合并为 1 条摘要`;
    }

    /** Day 7：每次请求的真实用量（服务商给了才有），全屏界面的用量面板用它。 */
    setUsageListener(fn: (usage: Usage) => void): void {
        this.onUsage = fn;
    }

    /** Day 9：系统提示每次请求前重新生成，只放在请求里，从不存进历史。 */
    setSystemPrompt(fn: () => string): void {
        this.systemPrompt = fn;
    }

    /**
     * Day 9：规划策略由入口传进来（Chat 不认识具体工具）。每次请求前调用：
     * 第一轮 lastCalls 为空，之后是上一轮调用的工具名；返回要强制调用的工具名，null = 让模型自己选。
     */
    setForcedTool(fn: (input: string, lastCalls: string[]) => string | null): void {
        this.forcedTool = fn;
    }

    /** Day 9：子 Agent。一次非流式请求，只有子 Agent 的系统提示和任务本身，没有工具、没有历史。 */
    async delegate(task: string): Promise<string> {
        const { content, usage } = await complete(this.config(), [
            { role: 'system', content: SUB_AGENT_PROMPT },
            { role: 'user', content: task },
        ], this.turnSignal);
        if (usage) this.onUsage(usage);
        return content.trim() || '子 Agent 没有返回结果';
    }

    reset(): void { this.history = []; }

    /** 一轮对话。任何失败（HTTP 错误、断网、断流、取消）都把历史截回本轮之前，已经显示的半截文字留在屏幕上。 */
    async *streamReply(input: string, signal?: AbortSignal): AsyncGenerator<ReplyPiece> {
        this.turnSignal = signal;   // Day 9：子 Agent 的请求跟着这一轮取消
        this.history.push({ role: 'user', content: input });
        // Day 5：历史太长时先压缩。还没有可切的 user 边界（前几轮、单个超长的一轮）时不压缩也不提示，否则每轮都会多一行空话
        if (historySize(this.history) > maxHistory() && splitPoint(this.history) > 0) {
            // 压缩失败不影响这一轮：保留原样继续
            const message = await this.compact(signal).catch(() => '历史压缩失败：保留原样');
            yield { type: 'progress', text: `历史压缩：${message}` };
        }
        const start = this.history.length - 1;   // 压缩之后再取：已完成的压缩在回滚时保留
        let ok = false;
        try {
            yield* this.toolLoop(input, signal);   // Day 9：规划策略要看用户的话
            ok = true;
        } finally {
            if (!ok) this.history.length = start;
        }
    }

    /**
     * Day 2：工具循环。流结束时只要有调用且每个调用都有名字，就是一轮工具调用（finish_reason 只作参考）：
     * 先存带 tool_calls 的 assistant 消息，再按顺序执行，每个调用存一条 tool 消息，然后再请求。
     */
    private async *toolLoop(input: string, signal?: AbortSignal): AsyncGenerator<ReplyPiece> {
        let lastCalls: string[] = [];
        for (let round = 0; round < MAX_TOOL_TURNS; round++) {
            const tools = toOpenAITools();
            const force = this.forcedTool(input, lastCalls);   // Day 9：规划策略可以要求这一次必须调用某个工具
            const result = yield* this.requestOnce(signal, tools.length ? { tools, tool_choice: toolChoice(force, tools) } : {});
            const calls = result.toolCalls;
            if (calls.length === 0 || calls.some((c) => !c.name)) {
                this.history.push({ role: 'assistant', content: result.text + (result.refusal ?? '') });
                yield* stopNotice(result);
                return;
            }
            this.history.push(assistantWithCalls(result, calls));
            lastCalls = calls.map((c) => c.name);   // Day 9：给规划策略看
            for (const call of calls) {
                const output = await untilAborted(execTool(call.name, call.arguments, signal), signal);
                this.history.push({ role: 'tool', tool_call_id: call.id, content: output });
                yield { type: 'progress', text: `调用工具 ${call.name} → ${preview(output)}` };
            }
        }
        yield* this.stopAtCap();
    }

    /** 发一次流式请求，边收边产出增量；流不完整（出错，或没见到 finish_reason）就抛错。 */
    private async *requestOnce(signal?: AbortSignal, extra: object = {}): AsyncGenerator<ReplyPiece, StreamResult> {
        // Day 9：系统提示只放在请求里。它在这里、也只在这里脱敏：AGENTS.md、技能说明、召回的记忆里都可能有密钥
        const system = redact(this.systemPrompt());
        const messages: Message[] = system ? [{ role: 'system', content: system }, ...this.history] : this.history;
        const request = { messages, ...extra, stream_options: { include_usage: true } };   // Day 7：要用量
        const result = yield* streamChat(this.config(), request, signal);
        if (result.usage) this.onUsage(result.usage);
        if (!result.complete) throw new ApiError(result.error ?? '流在回复完成之前就结束了');
        return result;
    }

    // —— 加固：轮数上限、取消、补齐工具调用、进度行与停止原因 ——

    /** Day 2：到达上限：提示也存成 assistant 消息，历史以回答结尾，下一轮请求依然合法。 */
    private *stopAtCap(): Generator<ReplyPiece> {
        yield { type: 'progress', text: CAP_NOTICE };
        this.history.push({ role: 'assistant', content: CAP_NOTICE });
    }
}

// Day 2：一轮对话里最多几轮工具调用，防止模型无限循环
const MAX_TOOL_TURNS = 30;   // Day 9：有了 TODO 规划，一轮里的工具调用可以多得多
const CAP_NOTICE = '工具调用轮数过多，已停止';

/**
 * 等工具结束，但这一轮被取消时立刻不再等：这一轮马上回滚。工具也收到同一个信号自己停下
 * （shell 杀掉进程组、抓网页断开连接、MCP 调用发出取消通知）；不看信号的工具在后台自己结束。
 */
function untilAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
    if (!signal) return work;
    return new Promise((resolve, reject) => {
        const onAbort = () => reject(new ApiError('已取消'));
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
}

/** Day 9：只有要强制的工具在可见工具里时才强制，否则请求会被服务商拒绝。 */
function toolChoice(force: string | null, tools: any[]): object | string {
    const canForce = force !== null && tools.some((t: any) => t.function.name === force);
    return canForce ? { type: 'function', function: { name: force } } : 'auto';
}

/** 补齐缺失的 id，空参数存成 "{}"；DeepSeek 思考模式要求把 reasoning_content 原样带回。 */
function assistantWithCalls(result: StreamResult, calls: ToolCall[]): Message {
    for (const c of calls) {
        if (!c.id) c.id = 'call_' + randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').slice(0, 8);
        if (c.arguments.trim() === '') c.arguments = '{}';
    }
    const message: Message = {
        role: 'assistant',
        content: result.text || null,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    };
    if (result.reasoning) message.reasoning_content = result.reasoning;
    return message;
}

/** 进度行只有一行，只放结果的开头：完整结果已经交给模型。 */
function preview(output: string): string {
    return truncateOutput(output, 200).replace(/\s*\n\s*/g, ' ⏎ ');
}

function* stopNotice(result: StreamResult): Generator<ReplyPiece> {
    if (result.finishReason === 'length') yield { type: 'notice', text: '（输出因长度限制而停止）' };
    if (result.finishReason === 'content_filter') yield { type: 'notice', text: '（输出被内容过滤器截断）' };
}
