// 在伪终端里跑学习者的 Agent（npm run check 的 --tty）：从第 7 天起，原教程的 Agent 只在终端里跑，stdin、stdout 不是终端就退出。
// 不加依赖：Linux 上用 util-linux 的 script（script -qfec 命令 /dev/null）开一个伪终端，命令先用 stty 定好行列再 exec 进 Agent。
// 像人一样打字：等输出安静至少 1 秒（比章节里教的任何「等一会儿再刷新」都长）再打一行，回车是 \r；结束时明确地 /exit 或 Ctrl+D，
// 另有一个期限。全屏界面会重画，屏幕上的长文字不可靠：用它的检查只看请求、磁盘和短标记。
// 界面空闲时还一直重画（比如每秒走的计时器）的 Agent 等不到安静，打不进字，到期限为止。
// 限制：只支持 Linux（要读 /proc 找出整个会话的进程、结束时一个不留）；macOS 的 BSD script 参数不同（没有 -c、-e），这里没有实现。
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

export interface TtyOptions {
    argv: string[];                      // 在伪终端里运行的命令，第一个是程序
    cwd: string;
    env: Record<string, string>;         // 全部环境变量（不继承这个进程的）；TERM 缺省 xterm-256color
    rows?: number;                       // 缺省 40 × 120
    cols?: number;
    deadlineMs?: number;                 // 缺省 30 s：到时杀掉整个会话，timedOut = true，已有的输出照样留着
    quietMs?: number;                    // 打一行之前输出要安静多久，缺省也至少 1000 ms
}

export interface TtyExit {
    code: number | null;                 // Agent 的退出码（script -e 照传）；被杀、超时是 null
    timedOut: boolean;
}

/** 这台机器上用不了 --tty 时说明原因（中文，给学习者看）；用得了是 null。 */
export function ttyUnsupported(): string | null {
    if (process.platform !== 'linux') {
        return `--tty 只支持 Linux（这台机器是 ${process.platform}）：它用 util-linux 的 script 开伪终端、读 /proc 收拾进程；` +
            'macOS 自带的 BSD script 参数不同，没有实现。可以改用行模式：stdin 不是终端时不开全屏界面（isTTY ? 全屏界面 : 行模式）';
    }
    const probe = spawnSync('script', ['--version'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0 || !/util-linux/.test(probe.stdout)) {
        return '--tty 要用 util-linux 的 script 命令，这台机器上没有找到（Debian/Ubuntu：apt install bsdutils；Fedora：dnf install util-linux-script）';
    }
    return null;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 去掉控制序列和回车，留下能找标记的文字（全屏界面的屏幕内容不可靠，只用来找短标记）。 */
export function plainText(output: string): string {
    return output
        .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '')          // OSC（标题等）
        .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')                   // CSI（颜色、光标、清屏）
        .replace(/\x1b[@-Z\\-_]/g, '')
        .replace(/\r/g, '');
}

interface Proc { pid: number; ppid: number; sid: number }

function processTable(): Proc[] {
    const table: Proc[] = [];
    for (const name of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(name)) continue;
        try {
            const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
            // pid (comm) state ppid pgrp session …：comm 里可能有空格和括号，从最后一个 ) 之后读
            const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
            table.push({ pid: Number(name), ppid: Number(fields[1]), sid: Number(fields[3]) });
        } catch {
            // 进程刚好退出了
        }
    }
    return table;
}

/** 一次在伪终端里的运行。用法：type() 打一行、ctrlD()、waitFor() 等一个标记，最后 kill()，exited 给出退出码。 */
export class TtyAgent {
    output = '';
    readonly exited: Promise<TtyExit>;
    private readonly child: ChildProcess;
    private readonly quietMs: number;
    private lastOutput = Date.now();
    private done = false;
    private timedOut = false;
    private sid = 0;                     // Agent 的会话：script 给它 setsid，Agent 就是会话首进程，sid 等于它的 pid
    private readonly timer: NodeJS.Timeout;

    constructor(opts: TtyOptions) {
        this.quietMs = Math.max(1000, opts.quietMs ?? 1000);
        const size = `stty rows ${opts.rows ?? 40} cols ${opts.cols ?? 120}`;
        const command = `${size}; exec ${opts.argv.map(quote).join(' ')}`;
        this.child = spawn('script', ['-qfec', command, '/dev/null'], {
            cwd: opts.cwd,
            env: { TERM: 'xterm-256color', ...opts.env, SHELL: '/bin/sh' },
            stdio: ['pipe', 'pipe', 'pipe'],
            detached: true,              // script 自己一个进程组；Agent 在伪终端的会话里，kill() 另找
        });
        this.child.stdout!.on('data', (chunk: Buffer) => {
            this.output += chunk.toString('utf8');
            this.lastOutput = Date.now();
            this.findSession();
        });
        this.child.stderr!.on('data', (chunk: Buffer) => { this.output += chunk.toString('utf8'); });
        this.child.stdin!.on('error', () => {});   // Agent 已经退出：打的字没人收，不算错
        this.timer = setTimeout(() => {
            this.timedOut = true;
            this.kill();
        }, opts.deadlineMs ?? 30_000);
        this.exited = new Promise<TtyExit>((resolve) => {
            this.child.on('error', () => resolve({ code: null, timedOut: this.timedOut }));
            this.child.on('exit', (code) => {
                this.done = true;
                clearTimeout(this.timer);
                resolve({ code: this.timedOut ? null : code, timedOut: this.timedOut });
            });
        });
        running.add(this);
    }

    get alive(): boolean {
        return !this.done;
    }

    /** 等输出安静 quietMs、ready()（比如假模型没有未完的请求）也为真，再打一行并回车。Agent 先退出了就返回 false。 */
    async type(line: string, ready: () => boolean = () => true): Promise<boolean> {
        return this.send(`${line}\r`, ready);
    }

    /** 同 type()，按的是 Ctrl+D（行首的 Ctrl+D 是输入结束）。 */
    async ctrlD(ready: () => boolean = () => true): Promise<boolean> {
        return this.send('\x04', ready);
    }

    /** 等输出（去掉控制序列后）里出现 marker；Agent 退出或到期限还没有就是 false。 */
    async waitFor(marker: string | RegExp): Promise<boolean> {
        const seen = () => (typeof marker === 'string' ? plainText(this.output).includes(marker) : marker.test(plainText(this.output)));
        while (!this.done && !seen()) await sleep(50);
        return seen();
    }

    /** 杀掉整个会话：script、Agent、Agent 起的每个进程（包括自己另开进程组的），一个不留。可以多次调用。 */
    kill(): void {
        this.findSession();
        const table = processTable();
        const doomed = new Set<number>();
        const add = (pid: number) => {
            if (doomed.has(pid)) return;
            doomed.add(pid);
            for (const p of table) if (p.ppid === pid) add(p.pid);
        };
        if (this.child.pid) add(this.child.pid);
        for (const p of table) if (this.sid && p.sid === this.sid) add(p.pid);
        for (const pid of doomed) {
            try {
                process.kill(pid, 'SIGKILL');
            } catch {
                // 已经退出
            }
        }
        try {
            if (this.child.pid) process.kill(-this.child.pid, 'SIGKILL');
        } catch {
            // 整组都已经退出
        }
        running.delete(this);
    }

    private async send(keys: string, ready: () => boolean): Promise<boolean> {
        while (!this.done && (Date.now() - this.lastOutput < this.quietMs || !ready())) await sleep(50);
        if (this.done) return false;
        this.child.stdin!.write(keys);
        this.lastOutput = Date.now();   // 回显和回复还没到：下一行至少再等一个 quietMs
        return true;
    }

    private findSession(): void {
        if (this.sid || !this.child.pid) return;
        // script 的子进程 setsid 之后才算数：之前它还在我们的会话里，按那个会话杀就杀到自己头上了
        const agent = processTable().find((p) => p.ppid === this.child.pid && p.sid === p.pid);
        if (agent) this.sid = agent.sid;
    }
}

// 检查进程退出时还开着的伪终端：连同里面的一切都杀掉
const running = new Set<TtyAgent>();
process.on('exit', () => {
    for (const run of running) run.kill();
});
