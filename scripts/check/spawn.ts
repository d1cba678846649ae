// 启动一个 Agent 进程、往它的 stdin 打字、收它的输出、到时连同它启动的一切一起结束。
// npm run check 跑学习者的 Agent（harness.ts）和测试跑各阶段（test/helpers/run-stage.ts）都只经这里启动进程；
// 伪终端（tty.ts，npm run check 的 --tty）只换掉启动的命令和 Wiring 里的几样，收输出、期限也用这里的 attach。
// 进程自己一个进程组：结束时连同它启动的 shell 命令、MCP 服务器一起杀掉，不留给机器。
import { spawn, type ChildProcess } from 'node:child_process';

/** 一次运行从启动到退出的兜底期限：给得很宽，繁忙的 2 核机器上也不会误判。 */
export const DEADLINE_MS = 90_000;

// tsx 从本仓库的 node_modules 解析（绝对路径）：入口在哪里都能跑，cwd 是临时目录也一样
const TSX_LOADER = import.meta.resolve('tsx');

// 只为快：Node 的 fetch（undici）第一次用时要把它的 HTTP 解析器（WebAssembly）交给优化编译器，
// 每个进程多花约 0.17 s CPU（2 核机器上量的：node -e "await fetch(…)" 0.36 s，加这个 V8 开关 0.19 s）。
// 只用基线编译器，行为不变，只是解析器慢一点（假模型的回复都很短）
const FAST_START = '--liftoff-only';

/** 跑一个入口的命令行：.ts 经 tsx（和 tsx 命令一样只去掉类型，但少起一个进程），已经转成 .js 的直接 node。 */
export function nodeCommand(entry: string): string[] {
    return [process.execPath, FAST_START, ...(entry.endsWith('.ts') ? ['--import', TSX_LOADER] : []), entry];
}

export interface StartOptions {
    cwd: string;
    env: Record<string, string>;
    timeoutMs?: number;             // 缺省 DEADLINE_MS：到时杀掉整个进程组，timedOut() 为真
    stderrToStdout?: boolean;       // 像 agent 2>&1 | … 那样 stderr 和 stdout 是同一个管道（经 sh 的 2>&1）；stderr() 总是空的
}

/** 正在运行的 Agent。管道和伪终端（npm run check -- … --tty）各有一个实现，检查只用这些。 */
export interface AgentProcess {
    child: ChildProcess;
    agentPid(): number | undefined;          // Agent 自己的进程（经 script 这类外壳启动时是外壳下面的那个）：看它还有没有在跑的子进程
    stdout(): string;
    stderr(): string;
    onOutput(listener: () => void): void;    // 每来一块输出（stdout 或 stderr）调用一次
    write(data: string): void;               // 原样写进输入
    typeLine(line: string): Promise<void>;   // 打一行再按回车：回车按下去了才 resolve（终端里字和回车分两次按）
    end(): void;                             // 输入结束（管道关 stdin；终端里是 Ctrl+D）
    exited: Promise<number | null>;          // 进程退出（退出码；被信号杀掉时是 null）
    closed: Promise<void>;                   // 输出管道都关了（组里别的进程也可能拿着它们）
    timedOut(): boolean;
    killGroup(): void;
}

/** 怎样启动 Agent：缺省是管道（startAgent）；--tty 换成伪终端。minQuietMs：输出静下来多久才算在等输入的下限。 */
export interface Spawner {
    name: string;
    start(command: string[], opts: StartOptions): AgentProcess;
    minQuietMs?: number;
}

/** 按键的地方：往输入里写，和到现在为止来了几块输出（看 Agent 回显了没有）。 */
export interface Keys {
    write(data: string): void;
    outputs(): number;
}

/** 管道和伪终端不同的只有这几样：回车是什么、怎样结束输入、Agent 是哪个进程、怎样连同它起的一切杀掉。 */
export interface Wiring {
    enter(io: Keys, line: string): Promise<void>;   // 打一行再按回车
    end(child: ChildProcess): void;
    agentPid(child: ChildProcess): number | undefined;
    kill(child: ChildProcess): void;
}

function killGroup(child: ChildProcess): void {
    try {
        if (child.pid && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
    } catch {
        // 整组都已经退出
    }
}

/** 收一个已经启动的进程的输出、往它的 stdin 写、到期限杀掉：管道（startAgent）和伪终端（tty.ts）共用。 */
export function attach(child: ChildProcess, timeoutMs: number | undefined, wiring: Wiring): AgentProcess {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const listeners: Array<() => void> = [];
    const heard = (to: Buffer[]) => (chunk: Buffer) => {
        to.push(chunk);
        for (const listener of listeners) listener();
    };
    child.stdout!.on('data', heard(out));
    child.stderr!.on('data', heard(err));
    // 提前退出的 Agent 不读 stdin：EPIPE 不算出错
    child.stdin!.on('error', () => {});
    const write = (data: string) => {
        if (!child.stdin!.destroyed && !child.stdin!.writableEnded) child.stdin!.write(data);
    };

    let timedOut = false;
    const timer = setTimeout(() => {
        timedOut = true;
        wiring.kill(child);
    }, timeoutMs ?? DEADLINE_MS);
    timer.unref();   // 进程和管道还在，事件循环就还在；都没了（比如留下的进程被杀掉）就不必再等这个计时器
    const exited = new Promise<number | null>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', (code) => resolve(code));
    });
    const closed = new Promise<void>((resolve) => child.on('close', () => {
        clearTimeout(timer);
        resolve();
    }));
    const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8');
    return {
        child,
        agentPid: () => wiring.agentPid(child),
        stdout: () => text(out),
        stderr: () => text(err),
        onOutput: (listener) => void listeners.push(listener),
        write,
        typeLine: (line) => wiring.enter({ write, outputs: () => out.length + err.length }, line),
        end: () => wiring.end(child),
        exited,
        closed,
        timedOut: () => timedOut,
        killGroup: () => wiring.kill(child),
    };
}

const PIPE_WIRING: Wiring = {
    enter: async (io, line) => io.write(`${line}\n`),
    end: (child) => child.stdin!.end(),
    agentPid: (child) => child.pid,
    kill: killGroup,
};

/** 经管道启动：stdin、stdout、stderr 都是管道，就像 echo … | agent。 */
export function startAgent(command: string[], opts: StartOptions): AgentProcess {
    // exec：sh 把自己换成 node，进程还是这一个（pid、进程组、信号都和不经 sh 时一样）
    const [cmd, ...args] = opts.stderrToStdout ? ['sh', '-c', 'exec "$@" 2>&1', 'sh', ...command] : command;
    const child = spawn(cmd, args, {
        cwd: opts.cwd,
        env: opts.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
    });
    return attach(child, opts.timeoutMs, PIPE_WIRING);
}

export const PIPE: Spawner = { name: 'pipe', start: startAgent };
