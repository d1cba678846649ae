// —— 加固：服务器子进程的启动与停止、它继承的环境 ——
// Day 15：stdio 服务器是 agent 的子进程：stdin / stdout 上讲 JSON-RPC，stderr 是它的日志。detached：自成一个进程组
// （process-group.ts），npx、sh -c 再启动的孙进程也能一起结束。Windows 上只能尽力结束子进程本身。
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { McpServerConfig } from './mcp-config.ts';
import { forgetIfGone, markedEnv, signalGroup, trackGroup } from './process-group.ts';
import { isSecretVar } from './redact.ts';
import { traceMcp } from './trace.ts';

const STOP_WAIT_MS = 2000;

// 启动失败（工作目录不存在、spawn 同步抛错）直接抛出；找不到命令要等子进程的 error 事件
export function spawnServer(name: string, config: McpServerConfig): ChildProcessWithoutNullStreams {
    const cwd = config.cwd ?? process.cwd();
    // 先检查 cwd：否则缺失的目录也会表现为 ENOENT，被误报成「找不到命令」
    if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`找不到工作目录：${cwd}`);
    let child: ChildProcessWithoutNullStreams;
    // 环境里带上这次运行的标记（markedEnv）：用 setsid 离开了进程组的孙进程，Agent 退出时也能认出来、杀掉
    try {
        child = spawn(config.command, config.args, { cwd, env: markedEnv(serverEnv(config)), stdio: 'pipe', detached: true, windowsHide: true });
    } catch (e) {
        throw new Error(`启动服务器失败：${(e as Error).message}`);
    }
    traceMcp(name, '·', `启动 ${[config.command, ...config.args].join(' ')}（pid ${child.pid}）`);
    trackGroup(child.pid);
    child.on('exit', () => forgetIfGone(child.pid));   // 自己退出了：组里没有进程了就不再记着它
    return child;
}

// 关 stdin（MCP 规定的正常退出方式）→ 等 2 秒 → SIGTERM → 等 2 秒 → SIGKILL，每一步都针对整个进程组：
// 直接子进程退出了还不够，孙进程可能还在
export async function stopServer(name: string, child: ChildProcessWithoutNullStreams): Promise<void> {
    traceMcp(name, '·', '停止：关闭 stdin，2 秒不退出发 SIGTERM，再 2 秒发 SIGKILL');
    child.stdin.end();
    const pgid = child.pid;
    if (pgid !== undefined && !(await groupGone(pgid, STOP_WAIT_MS))) {
        signalGroup(pgid, 'SIGTERM');
        if (!(await groupGone(pgid, STOP_WAIT_MS))) {
            signalGroup(pgid, 'SIGKILL');
            await groupGone(pgid, 500);
        }
    }
    forgetIfGone(pgid);
    child.stdout.destroy();
    child.stderr.destroy();
    child.stdin.destroy();
}

async function groupGone(pgid: number, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (signalGroup(pgid, 0)) {
        if (Date.now() >= deadline) return false;
        await sleep(20);
    }
    return true;
}

// 服务器继承 agent 的环境，但去掉像密钥的变量（名字像密钥，或值像密钥：带密码的 URL、认得出格式的令牌；与 Day 8 脱敏同一条规则）：
// 模型 API Key 不该流到第三方程序里；配置里的 env 叠加在上面，用户明确写出的变量（哪怕像密钥）照传
function serverEnv(config: McpServerConfig): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
        if (value !== undefined && !isSecretVar(name, value)) env[name] = value;
    }
    return { ...env, ...config.env };
}
