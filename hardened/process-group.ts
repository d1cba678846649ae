// —— 加固：进程组 ——
// Day 3：随 run_shell 引入；第 15 天的 MCP 服务器也用它。
// 子进程以 detached:true 启动，自成一个进程组（pgid = pid）：信号发给整个组，命令或服务器再启动的孙进程也跑不掉。
// Agent 退出时（任何退出路径都经过 exit 事件）还记着的组一律 SIGKILL，不留孤儿进程。
// 用 setsid 另起会话的进程已经离开了组：它们靠环境里这次运行的标记认出来（markedEnv），退出时在 /proc 里找到杀掉。
// 限制：清空了环境（env -i）或换了用户的进程认不出来；没有 /proc 的系统（macOS）上 setsid 出去的进程杀不到。
// Windows 没有进程组，只能结束子进程本身。
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';

const groups = new Set<number>();
const isWindows = process.platform === 'win32';
// 每次运行随机生成：同一台机器上别的 Agent（或这个 Agent 里再启动的 Agent）的子进程不会被误杀
const RUN_ID = randomBytes(8).toString('hex');
let marked = false;   // 一个子进程都没启动过，退出时就不必扫 /proc
process.on('exit', killAllGroups);

/** 记住一个新组；spawn 失败时没有 pid，什么也不做。 */
export function trackGroup(pgid: number | undefined): void {
    if (pgid !== undefined) groups.add(pgid);
}

/** 给整个组发信号；signal 为 0 时只检查组里还有没有进程。返回组是否还活着（EPERM 也算活着）。 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
    try {
        process.kill(isWindows ? pgid : -pgid, signal);
        return true;
    } catch (e) {
        return (e as NodeJS.ErrnoException).code === 'EPERM';   // ESRCH：组里已经没有进程
    }
}

/** 组空了才忘掉它：sh 结束后组里可能还留着后台任务（nohup sleep 1000 &）；也免得日后给复用了这个号的无关进程发信号。 */
export function forgetIfGone(pgid: number | undefined): void {
    if (pgid !== undefined && !signalGroup(pgid, 0)) groups.delete(pgid);
}

/** 最后的保险：退出、崩溃、第二次 Ctrl+C 时调用。 */
export function killAllGroups(): void {
    for (const pgid of groups) signalGroup(pgid, 'SIGKILL');
    if (marked) killMarked();
}

/** 子进程的环境：env（缺省是 Agent 自己的环境）加上 GEEKAGENT_RUN=这次运行的标记，孙进程照样继承。每个 spawn 都经过它。 */
export function markedEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
    marked = true;
    return { ...env, GEEKAGENT_RUN: RUN_ID };
}

/**
 * 在 /proc/<pid>/environ（进程启动时的环境，进程自己改不掉）里找带着这次运行标记的进程，SIGKILL。
 * 被杀的进程可能正好又生了一个：杀到过就再扫一遍，最多三遍。读不了的（别的用户的、刚结束的）跳过。
 */
function killMarked(): void {
    for (let pass = 0; pass < 3; pass++) {
        let pids: string[];
        try {
            pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid);
        } catch {
            return;   // 没有 /proc
        }
        let killed = false;
        for (const pid of pids) {
            try {
                if (!fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`GEEKAGENT_RUN=${RUN_ID}`)) continue;
                process.kill(Number(pid), 'SIGKILL');
                killed = true;
            } catch { /* 读不了，或者刚好结束了 */ }
        }
        if (!killed) return;
    }
}
