// Day 3：shell 工具（第 2 天演示工具循环用的时间工具也在这里）。
import { spawn } from 'node:child_process';
import { authorize } from './permissions.ts';
import { forgetIfGone, markedEnv, signalGroup, trackGroup } from './process-group.ts';
import { registerTool, stringArg, truncateOutput } from './tools.ts';

const SHELL_TIMEOUT_MS = 10_000;

export function registerShellTools(): void {
    registerTool({
        name: 'get_current_time',
        description: '获取当前时间（北京时间）',
        parameters: { type: 'object', properties: {}, additionalProperties: false },
        run: () => new Date().toLocaleString('zh-CN', { timeZone: 'Asia/Shanghai', hour12: false }),
    });

    registerTool({
        name: 'run_shell',
        authorizes: true,   // Day 8：带着命令自己调用 authorize
        description: '在当前目录执行一条 shell 命令并返回输出（执行前会请用户确认）。只是查看文件时优先用 ls / read / glob。',
        parameters: {
            type: 'object',
            properties: { command: { type: 'string', description: '要执行的命令' } },
            required: ['command'],
            additionalProperties: false,
        },
        async run(args, signal) {
            const command = stringArg(args, 'command');
            if (!(await authorize('run_shell', `即将执行命令：${command}`))) return '已取消执行';
            return truncateOutput(await runShell(command, SHELL_TIMEOUT_MS, signal));
        },
    });
}

/**
 * 用 sh -c 执行，超时或这一轮被取消时停下。子进程单独成组（detached），停下时杀掉整组，
 * 这样命令里再启动的子进程也不会残留。子进程的 stdin 不接 Agent 的输入。
 */
export function runShell(command: string, timeoutMs = SHELL_TIMEOUT_MS, signal?: AbortSignal): Promise<string> {
    return new Promise((resolve) => {
        const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: markedEnv() });
        trackGroup(child.pid);
        const out: Buffer[] = [];
        const errOut: Buffer[] = [];
        let failure = '';
        const stop = (why: string) => {
            if (!failure) failure = why;
            if (child.pid) signalGroup(child.pid, 'SIGKILL');
        };
        const timer = setTimeout(() => stop(`超时：超过 ${timeoutMs / 1000} 秒`), timeoutMs);
        const onAbort = () => stop('已取消');
        signal?.addEventListener('abort', onAbort, { once: true });
        const collect = byteLimited(stop);
        child.stdout.on('data', collect(out));
        child.stderr.on('data', collect(errOut));
        child.on('error', (e) => {
            failure = e.message;
        });
        child.on('close', (code, killedBy) => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            forgetIfGone(child.pid);
            if (!failure && code !== 0) failure = killedBy ? `被信号 ${killedBy} 终止` : `退出码 ${code}`;
            const text = [Buffer.concat(out).toString(), Buffer.concat(errOut).toString()]
                .map((s) => s.trimEnd())
                .filter(Boolean)
                .join('\n');
            if (failure) resolve(`命令失败（${failure}）${text ? '\n' + text : ''}`);
            else resolve(text || '（无输出）');
        });
    });
}

// —— 加固：输出上限 ——
const SHELL_MAX_BYTES = 8000;

/** 收集 stdout 和 stderr 的块；两路合计超过 SHELL_MAX_BYTES 字节就停下命令，不把内存撑爆。 */
function byteLimited(stop: (why: string) => void): (into: Buffer[]) => (chunk: Buffer) => void {
    let bytes = 0;
    return (into) => (chunk) => {
        // Day 8：超限的那一块整块留下，不从中间切开：切开的地方可能正好在密钥中间，半截密钥脱敏认不出来。
        // 交给模型之前 truncateOutput 会先脱敏、再截到 2000 个字符
        if (bytes < SHELL_MAX_BYTES) into.push(chunk);
        bytes += chunk.length;
        if (bytes > SHELL_MAX_BYTES) stop(`输出超过 ${SHELL_MAX_BYTES} 字节`);
    };
}
