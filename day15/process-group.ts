// —— 加固：进程组（Day 4 引入）——
// 子进程以 detached:true 启动，自成一个进程组（pgid = pid）：信号发给整个组，命令或服务器再启动的孙进程也跑不掉。
// Agent 退出时（任何退出路径都经过 exit 事件）还记着的组一律 SIGKILL，不留孤儿进程。
// 限制：用 setsid 另起会话的进程已经离开这个组，杀不到。Windows 没有进程组，只能结束子进程本身。
const groups = new Set<number>();
const isWindows = process.platform === 'win32';
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
}
