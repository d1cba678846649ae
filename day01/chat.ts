// Day 1：对话。history 就是发给模型的 messages 数组；每轮把完整历史发出去，多轮记忆由此而来。
import type { Config } from './config.ts';
import { ApiError, streamChat, type Message } from './llm.ts';
import type { Delta, StreamResult } from './sse.ts';

export type ReplyPiece = Delta | { type: 'notice'; text: string };   // 模型增量，或一行灰色提示（不进历史）

export class Chat {
    history: Message[] = [];
    private readonly cfg: Config;

    constructor(cfg: Config) { this.cfg = cfg; }

    reset(): void { this.history = []; }

    /** 一轮对话。任何失败（HTTP 错误、断网、断流、取消）都把历史截回本轮之前，已经显示的半截文字留在屏幕上。 */
    async *streamReply(input: string, signal?: AbortSignal): AsyncGenerator<ReplyPiece> {
        const start = this.history.length;
        this.history.push({ role: 'user', content: input });
        let ok = false;
        try {
            const result = yield* streamChat(this.cfg, this.history, signal);
            if (!result.complete) throw new ApiError(result.error ?? '流在回复完成之前就结束了');   // 出错，或没见到 finish_reason
            this.history.push({ role: 'assistant', content: result.text + (result.refusal ?? '') });
            yield* stopNotice(result);
            ok = true;
        } finally {
            if (!ok) this.history.length = start;
        }
    }
}

// —— 加固：因长度或内容过滤停下的回复要说出来 ——

function* stopNotice(result: StreamResult): Generator<ReplyPiece> {
    if (result.finishReason === 'length') yield { type: 'notice', text: '（输出因长度限制而停止）' };
    if (result.finishReason === 'content_filter') yield { type: 'notice', text: '（输出被内容过滤器截断）' };
}
