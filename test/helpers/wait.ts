// 等一件看得见的事发生（屏幕上出现一段字、磁盘上出现文件、进程消失、假服务收到请求），而不是睡一段固定的时间。
// 期限只是兜底：给得很宽，繁忙的 2 核机器（另一套测试同时在跑）上也不会误判；事情一发生就立刻往下走，所以不拖慢测试。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { DEADLINE_MS } from '../../scripts/check/spawn.ts';

/** 测试里跑 npm run check 的检查时，「输出静了多久才算 Agent 在等输入」（scripts/check/typist.ts；命令行缺省 200 ms）。 */
export const CHECK_QUIET_MS = 50;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** 轮询到 check 成立；超过期限就失败，报出在等什么，以及 show() 给出的现场（屏幕、输出）。 */
export async function waitUntil(what: string, check: () => boolean, show: () => string = () => '', deadlineMs = DEADLINE_MS): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    // 先勤后疏：10 ms 起每次加倍、最多 100 ms。多数事情几十毫秒内就发生；等得久的（回复、服务器启动）
    // 不必每 25 ms 查一次——tmux 测试每查一次屏幕就要起一个 tmux 进程，整套测试里这是几十秒 CPU
    for (let gap = 10; !check(); gap = Math.min(gap * 2, 100)) {
        if (Date.now() > deadline) assert.fail(`等待超时（${deadlineMs} ms）：${what}\n${show()}`);
        await sleep(gap);
    }
}

/** 命令行里带着 marker 的进程（读 /proc 下每个进程的 cmdline），每项是「pid: 命令行」。 */
export function processesWith(marker: string): string[] {
    const found: string[] = [];
    for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
        try {
            const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
            if (cmd.includes(marker)) found.push(`${pid}: ${cmd}`);
        } catch { /* 进程刚好结束 */ }
    }
    return found;
}

/**
 * 一条认得出来、又永远等不完的命令：sleep 的秒数（至少 1000 秒）兼作标记，用 processesWith 找到它。
 * 命令自己不会结束，所以「它不在了」只能是 Agent 杀掉了它；测试等的是这件事，不是某个时长。
 */
export function sleepCommand(): { command: string; running: () => boolean } {
    const command = `sleep ${Math.floor(Math.random() * 1e6) + 1000}.25`;
    return { command, running: () => processesWith(command).length > 0 };
}
