// Day 15：服务器子进程的启动与停止。detached:true 让服务器自成一个进程组（pgid = pid），
// 信号发给整个组，npx、sh -c 启动的孙进程也跑不掉。Windows 上只能尽力结束子进程本身。
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { serverEnv, type McpServerConfig } from './mcp-config.js';

const STOP_WAIT_MS = 2000;
const liveGroups = new Set<number>();
let exitHookInstalled = false;
const isWindows = process.platform === 'win32';

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
    try {
        process.kill(isWindows ? pgid : -pgid, signal);
        return true;
    } catch (e) {
        return (e as NodeJS.ErrnoException).code === 'EPERM';   // ESRCH：组里已经没有进程
    }
}

async function waitGroupGone(pgid: number, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (signalGroup(pgid, 0)) {
        if (Date.now() >= deadline) return false;
        await sleep(20);
    }
    return true;
}

// 最后的保险：agent 崩溃或直接 process.exit 时，还活着的组一律 SIGKILL；第二次 Ctrl+C 也调用它
export function forceKillAll(): void {
    for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
}

// 启动失败（工作目录不存在、spawn 同步抛错）直接抛出；找不到命令要等子进程的 error 事件
export function spawnServer(config: McpServerConfig): ChildProcessWithoutNullStreams {
    const cwd = config.cwd ?? process.cwd();
    // 先检查 cwd：否则缺失的目录也会表现为 ENOENT，被误报成"找不到命令"
    if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`找不到工作目录：${cwd}`);
    let child: ChildProcessWithoutNullStreams;
    try {
        child = spawn(config.command, config.args, { cwd, env: serverEnv(config), stdio: 'pipe', detached: true, windowsHide: true });
    } catch (e) {
        throw new Error(`启动服务器失败：${(e as Error).message}`);
    }
    if (child.pid !== undefined) {
        liveGroups.add(child.pid);
        if (!exitHookInstalled) {
            exitHookInstalled = true;
            process.on('exit', forceKillAll);
        }
    }
    return child;
}

// 服务器自己退出后调用：组里已经没有进程就不再记着它，免得日后给复用了这个号的无关进程发信号
export function forgetIfGone(child: ChildProcessWithoutNullStreams): void {
    if (child.pid !== undefined && !signalGroup(child.pid, 0)) liveGroups.delete(child.pid);
}

// 关 stdin → 等 2 秒 → SIGTERM → 等 2 秒 → SIGKILL，每一步都针对整个进程组：
// 直接子进程退出了还不够，孙进程可能还在
export async function stopServer(child: ChildProcessWithoutNullStreams): Promise<void> {
    try {
        child.stdin.end();
    } catch {
        // 管道可能已经断了，无所谓
    }
    const pgid = child.pid;
    if (pgid !== undefined && !(await waitGroupGone(pgid, STOP_WAIT_MS))) {
        signalGroup(pgid, 'SIGTERM');
        if (!(await waitGroupGone(pgid, STOP_WAIT_MS))) {
            signalGroup(pgid, 'SIGKILL');
            await waitGroupGone(pgid, 500);
        }
    }
    if (pgid !== undefined) liveGroups.delete(pgid);
    child.stdout.destroy();
    child.stderr.destroy();
    child.stdin.destroy();
}
