// 像人那样打字：一次只打一行，而且只在 Agent 等着输入时才打。不认任何提示文字（学习者的提示符、确认问题怎么写都行），
// 只看外面看得见的几件事，都成立才算「在等」：
//   - 假模型没有没回完的请求（回复发完了）；
//   - 间谍 MCP 服务器没有没回答的请求（第 15 天，probes 给出）；
//   - Agent 没有在跑的子进程（检查自己配的 MCP 服务器不算）：一条不出声的 run_shell 也是在忙；
//   - Agent 自己没在用 CPU、输出静了 quietMs 毫秒。
// 读不了进程表（没有 /proc，比如 macOS）时只看输出静了多久，静的时间要更长（QUIET_WITHOUT_PROC_MS）。
// 等了 FORCE_MS 还不像在等（比如留下了一个不退出的后台进程），照样打下去，记下原因，诊断时说出来。
import fs from 'node:fs';
import type { AgentProcess } from './spawn.ts';

/** 命令行缺省的「输出静了多久」；测试用更短的（runChecks 的 quietMs）。 */
export const QUIET_MS = 200;
/** 读不了进程表时只能靠输出静下来，要等得久一些。 */
const QUIET_WITHOUT_PROC_MS = 1000;
/** 最多等这么久：比章节里教的 10 秒超时（MCP 请求、shell 命令）长。 */
export const FORCE_MS = 15_000;
/** 打完一行，最多等这么久看 Agent 有没有反应（输出、发请求、退出）：不出声的 Agent 也不至于卡住。 */
const REACT_MS = 1000;

const HAS_PROC = fs.existsSync('/proc/self/stat');

/** 检查自己加的别的在忙的来源（第 15 天的间谍服务器）。 */
export interface Probe {
    busy(lastRequestAt: number): string | undefined;   // 在忙的原因（中文）；lastRequestAt 是假模型最近一次收到请求的时刻
    servers(): number[];                                // 检查自己配的 MCP 服务器进程：是 Agent 的子进程，但不算在忙
}

/** 假模型这一侧：还有几个请求没回完、最近一次请求什么时候到、一共到了几个。 */
export interface ModelSide {
    open(): number;
    lastRequestAt(): number;
    count(): number;
}

interface Stat { ppid: number; state: string; cpu: number; cmd: string }

/** /proc/<pid>/stat（给了 of 就是那个进程的线程 /proc/<of>/task/<pid>/stat）：状态、父进程、用户态加内核态的 CPU 时间（时钟滴答）。命令名在括号里，可能含空格。 */
function stat(pid: number, of?: number): Stat | undefined {
    try {
        const text = fs.readFileSync(of === undefined ? `/proc/${pid}/stat` : `/proc/${of}/task/${pid}/stat`, 'utf8');
        const close = text.lastIndexOf(')');
        const fields = text.slice(close + 2).split(' ');
        return { state: fields[0], ppid: Number(fields[1]), cpu: Number(fields[11]) + Number(fields[12]), cmd: text.slice(text.indexOf('(') + 1, close) };
    } catch {
        return undefined;   // 进程刚好结束
    }
}

/** 进程里有没有线程在跑或在等磁盘（R、D）：Node 读文件、转代码在线程池里做，那时主线程看起来在睡。 */
function working(pid: number): boolean {
    try {
        return fs.readdirSync(`/proc/${pid}/task`).some((tid) => /^[RD]$/.test(stat(Number(tid), pid)?.state ?? ''));
    } catch {
        return false;
    }
}

/** root 的所有后代进程（不含 root 自己）。 */
function descendants(root: number): Map<number, Stat> {
    const all = new Map<number, Stat>();
    for (const name of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(name)) continue;
        const s = stat(Number(name));
        if (s) all.set(Number(name), s);
    }
    const out = new Map<number, Stat>();
    let frontier = [root];
    while (frontier.length) {
        const next: number[] = [];
        for (const [pid, s] of all) {
            if (frontier.includes(s.ppid) && !out.has(pid)) {
                out.set(pid, s);
                next.push(pid);
            }
        }
        frontier = next;
    }
    return out;
}

/** tsx 转 TypeScript 用的 esbuild 服务进程：第一次转某个文件时由 tsx 启动，之后一直留着；它是运行 Agent 的工具，不是 Agent 在做事。 */
function isEsbuildService(pid: number): boolean {
    try {
        const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return /[/\\]esbuild(\.exe)?$/.test(argv[0]) && argv.some((a) => a.startsWith('--service='));
    } catch {
        return false;
    }
}

/**
 * 还在跑的子进程（MCP 服务器、它们的子进程、Agent 和它们之间的外壳都不算）。
 * tsx 的 esbuild 服务只在它正在转代码时（在用 CPU）才算：Agent 启动时等它转完每个文件，那时 Agent 自己一动不动。
 */
function busyChildren(agent: number, servers: number[], idleTool: (pid: number, s: Stat) => boolean): string[] {
    const tree = descendants(agent);
    const skip = new Set([...tree].filter(([pid, s]) => isEsbuildService(pid) && idleTool(pid, s)).map(([pid]) => pid));
    for (const server of servers.filter((pid) => tree.has(pid))) {
        skip.add(server);
        for (const pid of descendants(server).keys()) skip.add(pid);
        for (let up = tree.get(server)?.ppid; up !== undefined && up !== agent; up = tree.get(up)?.ppid) skip.add(up);
    }
    return [...tree].filter(([pid]) => !skip.has(pid)).map(([pid, s]) => `${s.cmd}（pid ${pid}）`);
}

export interface Typed { line: string; at: number; forced?: string }

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Typist {
    readonly quietMs: number;
    private lastOutput = Date.now();
    private outputs = 0;
    private cpu = -1;
    private cpuSince = Date.now();
    private exited = false;
    private esbuild = new Map<number, { cpu: number; since: number }>();   // esbuild 服务：上次看到的 CPU 时间、从什么时候起没变
    private agent: AgentProcess;
    private model: ModelSide;
    private probes: Probe[];

    constructor(agent: AgentProcess, model: ModelSide, probes: Probe[], quietMs: number) {
        this.agent = agent;
        this.model = model;
        this.probes = probes;
        this.quietMs = HAS_PROC ? quietMs : Math.max(quietMs, QUIET_WITHOUT_PROC_MS);
        agent.onOutput(() => {
            this.lastOutput = Date.now();
            this.outputs++;
        });
        agent.exited.then(() => { this.exited = true; }, () => { this.exited = true; });
    }

    /** 记下 Agent 用过的 CPU 时间：变了就从现在重新算「静了多久」。 */
    private sampleCpu(now: number): Stat | undefined {
        const pid = this.agent.agentPid();
        const self = HAS_PROC && pid !== undefined ? stat(pid) : undefined;
        if (self && self.cpu !== this.cpu) {
            this.cpu = self.cpu;
            this.cpuSince = now;
        }
        return self;
    }

    /** Agent 此刻为什么不算在等输入；在等时是 undefined。 */
    private busy(now: number): string | undefined {
        const self = this.sampleCpu(now);
        if (now - this.lastOutput < this.quietMs) return '还在输出';
        if (this.model.open() > 0) return '模型的回复还没发完';
        for (const probe of this.probes) {
            const why = probe.busy(this.model.lastRequestAt());
            if (why) return why;
        }
        if (!self) return undefined;
        if (now - this.cpuSince < this.quietMs || working(this.agent.agentPid()!)) return 'Agent 还在用 CPU';
        const idleTool = (pid: number, s: Stat) => {
            const seen = this.esbuild.get(pid);
            if (!seen || seen.cpu !== s.cpu) this.esbuild.set(pid, { cpu: s.cpu, since: now });
            return now - this.esbuild.get(pid)!.since >= this.quietMs && !working(pid);
        };
        const children = busyChildren(this.agent.agentPid()!, this.probes.flatMap((p) => p.servers()), idleTool);
        return children.length ? `还有子进程在跑：${children.join('、')}` : undefined;
    }

    /** 等到 Agent 在等输入（或者退出了）；等了 FORCE_MS 还不像，返回当时的原因。 */
    async idle(): Promise<string | undefined> {
        const start = Date.now();
        const step = Math.max(10, Math.min(50, this.quietMs / 4));
        for (;;) {
            if (this.exited) return undefined;
            const now = Date.now();
            const why = this.busy(now);
            // 看起来在等：先让事件循环读一遍已经到了的网络数据（setImmediate 排在 I/O 之后）再看一次——
            // 假模型和间谍服务器就在这个进程里，Agent 刚发出的请求可能还没被读到
            if (why === undefined && (await this.stillIdle())) return undefined;
            if (now - start >= FORCE_MS) return why;
            await sleep(step);
        }
    }

    private async stillIdle(): Promise<boolean> {
        await new Promise<void>((resolve) => setImmediate(resolve));
        return this.exited || this.busy(Date.now()) === undefined;
    }

    /**
     * 打一行，再等 Agent 对回车有反应（有输出、发了请求、用了 CPU、退出了），最多 REACT_MS：不出声的 Agent 也不至于卡住。
     * 从按下回车之后算起：终端里字先回显，那不是对这一行的反应。
     */
    async type(line: string): Promise<void> {
        await this.agent.typeLine(line);
        const before = { outputs: this.outputs, requests: this.model.count(), cpu: this.cpu };
        const start = Date.now();
        while (Date.now() - start < REACT_MS && !this.exited && this.outputs === before.outputs && this.model.count() === before.requests) {
            await sleep(10);
            if (this.sampleCpu(Date.now()) && this.cpu !== before.cpu) return;
        }
    }

    get hasExited(): boolean {
        return this.exited;
    }
}
