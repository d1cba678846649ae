// 像读者那样跑学习者的 Agent：node --import tsx <文件夹>/index.ts，干净的环境变量，新建的工作目录和主目录，
// OPENAI_BASE_URL 指向本机的假模型（scripts/fake-model/：按请求内容回复，并像真实 API 一样校验请求）。
// 输入像人打字：一次一行，只在 Agent 等着输入时才打（typist.ts）；最后一行打完、Agent 又在等时关掉 stdin。
// 不 import 学习者的任何代码；只看得见它发给模型的请求、留在磁盘上的文件、输出里有没有某个标记。
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { text, type FakeReply } from '../fake-model/replies.ts';
import { startFakeOpenAI, type RecordedRequest } from '../fake-model/server.ts';
import { nodeCommand, PIPE, type Spawner } from './spawn.ts';
import { QUIET_MS, Typist, type Probe, type Typed } from './typist.ts';

/**
 * 一行输入：缺省等 Agent 在等输入时才打；{ ahead } 是不等、紧接着上一行就打的（看忙时提前打的行丢不丢）：
 * 上一行引起的模型回复会停在正文之后，等这一行打进去才发完，所以它一定是在 Agent 忙着的时候到的。
 */
export type Line = string | { ahead: string };

export interface LearnerOptions {
    lines: Line[];                                     // 一行一行打（见 typist.ts），打完最后一行、Agent 又在等时关掉 stdin（EOF）
    model?: (body: any, n: number) => FakeReply;       // 按请求内容决定回复；请求一到就调用。缺省回一句短文字
    files?: Record<string, string>;                    // 启动前写进工作目录的文件（可含子目录）
    env?: Record<string, string>;                      // 追加的环境变量
    timeoutMs?: number;                                // 缺省 20 s：到时杀掉整个进程组，timedOut = true，已有的输出照样返回
    place?: Place;                                     // 用已有的工作目录和主目录（不新建也不删）：第二次运行接着用第一次的
    afterExit?: () => void | Promise<void>;            // 学习者的进程退出之后、杀掉整组之前调用（检查留下的进程）；超时时不调用
    onOutput?: (stdout: string) => void;               // 每来一块 stdout 就以到此为止的全部输出调用：等回复的前半段显示出来再发后半段
    spawner?: Spawner;                                 // 怎样启动：缺省经管道
    quietMs?: number;                                  // 输出静了多久才算在等输入，缺省 QUIET_MS
    probes?: Probe[];                                  // 别的在忙的来源（间谍 MCP 服务器）
}

/** 一次运行的地方：base 是新建的临时目录，里面是工作目录 work/ 和主目录 home/（base 里还可以放工作目录之外的文件）。 */
export interface Place {
    base: string;
    dir: string;
    home: string;
}

export interface LearnerRun {
    entry: string;
    stdout: string;
    stderr: string;
    terminal: boolean;      // 在伪终端里跑的（--tty）：Agent 的 stderr 也写在那个终端上，和界面一起在 stdout 里（去掉了控制序列）
    code: number | null;
    timedOut: boolean;
    requests: any[];        // 假模型收到的请求体（解析后的 JSON），按到达顺序；包括被校验拒绝的
    arrivals: number[];     // 每个请求到达的时刻（Date.now()），和 requests 一一对应
    rejected: string[];     // 假模型的校验错误（它像真实 API 一样回 400）
    place: Place;
    dir: string;            // 工作目录
    home: string;
    startedAt: number;      // 启动的时刻（Date.now()）
    typed: Typed[];         // 打了哪几行、什么时候（相对启动，毫秒）；forced：等了很久还不像在等，照样打的原因
    untyped: string[];      // Agent 退出时还没打的行
    closed?: Typed;         // 什么时候关的 stdin（line 是空的）；Agent 自己先退出了就没有
    exitedAt?: number;      // 什么时候退出的（相对启动）
    maxOpen: number;        // 假模型同时没回完的请求最多几个
    exchanges: RecordedRequest[];   // 假模型收到的每个请求和它回了什么（写运行记录用）
    quietMs: number;
}

// 检查进程结束时删掉这次建的临时目录
const made: string[] = [];
process.on('exit', () => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** 新建一次运行的地方（检查进程退出时删掉）。 */
export function newPlace(): Place {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-check-')));
    made.push(base);
    const place = { base, dir: path.join(base, 'work'), home: path.join(base, 'home') };
    fs.mkdirSync(place.dir);
    fs.mkdirSync(place.home);
    return place;
}

export function writeFiles(dir: string, files: Record<string, string>): void {
    for (const [name, content] of Object.entries(files)) {
        const file = path.join(dir, name);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, content);
    }
}

export async function runLearner(entry: string, opts: LearnerOptions): Promise<LearnerRun> {
    const place = opts.place ?? newPlace();
    writeFiles(place.dir, opts.files ?? {});
    const model = opts.model ?? (() => text('好的'));
    let gate: { held: Promise<void>; open: () => void } | undefined;   // 下一行是 { ahead } 时：回复停住，等它打进去
    const reply = (body: any, n: number): FakeReply => {
        const said = model(body, n);
        if (!gate || (said.kind !== 'text' && said.kind !== 'tools')) return said;
        return { ...said, hold: said.hold ? Promise.all([said.hold, gate.held]) : gate.held };
    };
    const fake = await startFakeOpenAI({ replies: (req, n) => reply(req.body, n) });
    try {
        const env: Record<string, string> = {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: place.home,
            OPENAI_API_KEY: 'sk-check-key-123456',
            OPENAI_BASE_URL: fake.url,
            OPENAI_MODEL: 'check-model',
            ...opts.env,
        };
        const spawner = opts.spawner ?? PIPE;
        const startedAt = Date.now();
        const agent = spawner.start(nodeCommand(entry), { cwd: place.dir, env, timeoutMs: opts.timeoutMs ?? 20_000 });
        if (opts.onOutput) agent.onOutput(() => opts.onOutput!(agent.stdout()));
        const model = { open: fake.open, count: () => fake.requests.length, lastRequestAt: () => fake.requests.at(-1)?.at ?? 0 };
        const typist = new Typist(agent, model, opts.probes ?? [], Math.max(opts.quietMs ?? QUIET_MS, spawner.minQuietMs ?? 0));
        const typed: Typed[] = [];
        let next = 0;
        for (; next < opts.lines.length; next++) {
            const line = opts.lines[next];
            const forced = typeof line === 'string' ? await typist.idle() : undefined;
            if (typist.hasExited) break;
            const said = typeof line === 'string' ? line : line.ahead;
            if (typeof opts.lines[next + 1] === 'object') {
                let open!: () => void;
                gate = { held: new Promise<void>((resolve) => { open = resolve; }), open };
            }
            typed.push({ line: said, at: Date.now() - startedAt, ...(forced ? { forced } : {}) });
            await typist.type(said);
            if (typeof line === 'object') {
                gate?.open();
                gate = undefined;
            }
        }
        gate?.open();
        let closed: Typed | undefined;
        if (!typist.hasExited) {
            const forced = await typist.idle();
            if (!typist.hasExited) {
                closed = { line: '', at: Date.now() - startedAt, ...(forced ? { forced } : {}) };
                agent.end();
            }
        }

        const code = await agent.exited;
        const exitedAt = Date.now() - startedAt;
        if (!agent.timedOut()) await opts.afterExit?.();
        agent.killGroup();
        // 组里留下的进程可能还拿着输出管道：杀掉之后最多再等一会儿，把已经写出的字读完
        await Promise.race([agent.closed, new Promise((resolve) => setTimeout(resolve, 2000))]);
        agent.child.stdout?.destroy();
        agent.child.stderr?.destroy();
        return {
            entry,
            stdout: agent.stdout(),
            stderr: agent.stderr(),
            terminal: spawner !== PIPE,
            code: agent.timedOut() ? null : code,
            timedOut: agent.timedOut(),
            requests: fake.requests.map((r) => r.body),
            arrivals: fake.requests.map((r) => r.at),
            rejected: fake.requests.flatMap((r) => (r.rejected === undefined ? [] : [r.rejected])),
            place,
            dir: place.dir,
            home: place.home,
            startedAt,
            typed,
            untyped: opts.lines.slice(next).map((line) => (typeof line === 'string' ? line : line.ahead)),
            closed,
            exitedAt,
            maxOpen: fake.maxOpen(),
            exchanges: fake.requests,
            quietMs: typist.quietMs,
        };
    } finally {
        await fake.close();
    }
}
