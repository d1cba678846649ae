// Day 3：shell 工具 run_shell（第 2 天看工具循环用的报时工具 get_current_time 也在这里）。
import { spawn } from 'node:child_process';
import { confirm, registerTool, stringArg } from './tools.ts';

const TIMEOUT_MS = 10_000;
const MAX_CHARS = 8000;   // 输出再多就停下命令：yes 这样停不下来的命令不该撑爆内存

export function registerShellTools(): void {
    // Day 2：最小的工具：没有参数，不改变任何东西，正好用来看清工具循环本身
    registerTool({
        name: 'get_current_time',
        description: '获取当前时间（北京时间）',
        parameters: { type: 'object', properties: {}, additionalProperties: false },
        run: () => new Date().toLocaleString('zh-CN', { timeZone: 'Asia/Shanghai', hour12: false }),
    });
    registerTool({
        name: 'run_shell',
        description: '在当前目录执行一条 shell 命令并返回输出（执行前会请用户确认）。只是查看文件时优先用 ls / read / glob。',
        parameters: {
            type: 'object',
            properties: { command: { type: 'string', description: '要执行的命令' } },
            required: ['command'],
            additionalProperties: false,
        },
        async run(args, signal) {
            const command = stringArg(args, 'command');
            // 命令以你的身份运行：原样显示出来（控制字符经 visible 转义），你答 y 才跑
            if (!(await confirm(`即将执行命令：${command}`))) return '已取消执行';
            return runShell(command, signal);
        },
    });
}

/**
 * 用 sh -c 执行。子进程自成一个进程组（detached）：超时、输出太多、这一轮被取消时杀掉整组，命令里再启动的进程
 * （sleep 100 | cat 里的 sleep）也跑不掉；只杀 sh 的话它们会变成孤儿接着跑。stdin 不接：命令读不到你打给 Agent 的字。
 */
function runShell(command: string, signal: AbortSignal): Promise<string> {
    return new Promise((resolve) => {
        const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        let failure = '';
        const stop = (why: string) => {
            failure ||= why;
            try {
                process.kill(-child.pid!, 'SIGKILL');   // 负的 pid：信号发给整个进程组
            } catch { /* 组里已经没有进程了 */ }
        };
        const timer = setTimeout(() => stop(`超时：超过 ${TIMEOUT_MS / 1000} 秒`), TIMEOUT_MS);
        const onAbort = () => stop('已取消');
        signal.addEventListener('abort', onAbort);
        // stdout 和 stderr 按到达的顺序收在一起：命令失败时最有用的往往是 stderr
        const collect = (chunk: string) => {
            output += chunk;
            if (output.length > MAX_CHARS) stop(`输出超过 ${MAX_CHARS} 个字符`);
        };
        child.stdout.setEncoding('utf8').on('data', collect);
        child.stderr.setEncoding('utf8').on('data', collect);
        child.on('error', (e) => stop(e.message));
        child.on('close', (code, killedBy) => {
            clearTimeout(timer);
            signal.removeEventListener('abort', onAbort);
            if (!failure && code !== 0) failure = killedBy ? `被信号 ${killedBy} 终止` : `退出码 ${code}`;
            const text = output.slice(0, MAX_CHARS).trimEnd();
            if (failure) resolve(`命令失败（${failure}）${text ? `\n${text}` : ''}`);
            else resolve(text || '（无输出）');
        });
    });
}
