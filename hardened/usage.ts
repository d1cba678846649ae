// Day 7：用量统计。服务商返回真实用量时以它为准；流式过程中用最新增量的估算值显示「正在进行」。
import type { Usage } from './sse.ts';

export const CONTEXT_WINDOW = 64000;

/** 粗略估算：每 2 个码点约 1 个 token（中英混合时的经验值）。 */
export function estimateTokens(text: string): number {
    let n = 0;
    for (const _ of text) n++;
    return Math.ceil(n / 2);
}

export class UsageMeter {
    total = 0;     // 累计
    turn = 0;      // 本轮
    live = 0;      // 正在流式输出的估算值（最新增量，不是累加）

    newTurn(): void {
        this.turn = 0;
        this.live = 0;
    }

    add(usage: Usage): void {
        this.live = 0;
        this.total += usage.total;
        this.turn += usage.total;
    }

    streaming(delta: string): void {
        this.live = estimateTokens(delta);
    }

    /** 当前历史占上下文窗口的比例，向上取整；空历史也显示 1%。 */
    static context(historyJson: string): { tokens: number; percent: number } {
        const tokens = estimateTokens(historyJson);
        return { tokens, percent: Math.max(1, Math.ceil((tokens / CONTEXT_WINDOW) * 100)) };
    }
}
