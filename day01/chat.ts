// Day 1：对话。history 就是发给模型的 messages 数组：服务器不记得上一次请求，每轮把整个历史发出去，多轮记忆由此而来。
import type { Config } from './config.ts';
import { streamChat, type Message } from './llm.ts';
import type { Delta } from './sse.ts';

export type ReplyPiece = Delta;   // 交给前端显示的一块

export class Chat {
    history: Message[] = [];
    private readonly cfg: Config;

    constructor(cfg: Config) {
        this.cfg = cfg;
    }

    reset(): void { this.history = []; }

    /** 一轮对话。任何失败（HTTP 错误、连不上、断流、Ctrl+C）都整轮撤掉：下一轮的请求里没有没人回答的问题，也没有半截回答。 */
    async *streamReply(input: string, signal: AbortSignal): AsyncGenerator<ReplyPiece> {
        const start = this.history.length;
        this.history.push({ role: 'user', content: input });
        try {
            const reply = yield* streamChat(this.cfg, this.history, signal);
            this.history.push({ role: 'assistant', content: reply.text });
        } catch (e) {
            this.history.length = start;
            throw e;
        }
    }
}
