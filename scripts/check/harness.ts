// 像读者那样跑学习者的 Agent：tsx <文件夹>/index.ts，管道 stdin，干净的环境变量，新建的工作目录和主目录，
// OPENAI_BASE_URL 指向本机的假模型（test/helpers/fake-openai.ts：按请求内容回复，并像真实 API 一样校验请求）。
// 不 import 学习者的任何代码；只看得见它发给模型的请求、留在磁盘上的文件、输出里有没有某个标记。
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { text } from '../../test/helpers/agent.js';
import { startFakeOpenAI, type FakeReply } from '../../test/helpers/fake-openai.js';

export interface LearnerOptions {
    lines: string[];                                   // 依次写进 stdin，最后关掉 stdin（EOF）
    model?: (body: any, n: number) => FakeReply;       // 按请求内容决定回复；请求一到就调用。缺省回一句短文字
    files?: Record<string, string>;                    // 启动前写进工作目录的文件（可含子目录）
    env?: Record<string, string>;                      // 追加的环境变量
    timeoutMs?: number;                                // 缺省 20 s：到时杀掉整个进程组，timedOut = true，已有的输出照样返回
    dir?: string;                                      // 用已有的工作目录（不新建也不删）：第二次运行接着用第一次的
    home?: string;                                     // 用已有的主目录（同上）
    afterExit?: () => void | Promise<void>;            // 学习者的进程退出之后、杀掉整组之前调用（检查留下的进程）；超时时不调用
    onOutput?: (stdout: string) => void;               // 每来一块 stdout 就以到此为止的全部输出调用：等回复的前半段显示出来再发后半段
}

export interface LearnerRun {
    stdout: string;
    stderr: string;
    code: number | null;
    timedOut: boolean;
    requests: any[];        // 假模型收到的请求体（解析后的 JSON），按到达顺序；包括被校验拒绝的
    rejected: string[];     // 假模型的校验错误（它像真实 API 一样回 400）
    dir: string;            // 工作目录
    home: string;
}

// tsx 从本仓库的 node_modules 解析（绝对路径）：学习者的文件夹在哪里都能跑，cwd 是临时目录也一样。
// 直接 node --import tsx，和 tsx 命令一样只去掉类型，但少起一个进程。入口已经是 .js（测试里转好的阶段）时不用 tsx。
// --liftoff-only 只为快：每次启动少约 0.15 s CPU，行为不变（缘由见 test/helpers/run-stage.ts 的 FAST_START）
const TSX_LOADER = import.meta.resolve('tsx');
const nodeArgs = (entry: string) => ['--liftoff-only', ...(entry.endsWith('.ts') ? ['--import', TSX_LOADER] : []), entry];

// 检查进程结束时删掉这次建的临时目录
const made: string[] = [];
process.on('exit', () => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(kind: string): string {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `geekagent-check-${kind}-`)));
    made.push(dir);
    return dir;
}

function writeFiles(dir: string, files: Record<string, string>): void {
    for (const [name, content] of Object.entries(files)) {
        const file = path.join(dir, name);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, content);
    }
}

function killGroup(pid: number | undefined): void {
    if (!pid) return;
    try {
        process.kill(-pid, 'SIGKILL');
    } catch {
        // 整组都已经退出
    }
}

export async function runLearner(entry: string, opts: LearnerOptions): Promise<LearnerRun> {
    const dir = opts.dir ?? tempDir('work');
    const home = opts.home ?? tempDir('home');
    writeFiles(dir, opts.files ?? {});
    const model = opts.model ?? (() => text('好的'));
    const fake = await startFakeOpenAI({ replies: (req, n) => model(req.body, n) });
    try {
        const env: Record<string, string> = {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: home,
            OPENAI_API_KEY: 'sk-check-key-123456',
            OPENAI_BASE_URL: fake.url,
            OPENAI_MODEL: 'check-model',
            ...opts.env,
        };
        const child = spawn(process.execPath, nodeArgs(entry), {
            cwd: dir,
            env,
            stdio: ['pipe', 'pipe', 'pipe'],
            // 独立进程组：结束时连同它启动的命令、服务器一起杀掉
            detached: true,
        });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on('data', (chunk: Buffer) => {
            out.push(chunk);
            opts.onOutput?.(Buffer.concat(out).toString('utf8'));
        });
        child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
        child.stdin.on('error', () => {});   // 提前退出的 Agent 不读 stdin：EPIPE 不算检查出错
        child.stdin.end(opts.lines.map((line) => `${line}\n`).join(''));

        let timedOut = false;
        const exited = new Promise<number | null>((resolve, reject) => {
            child.on('error', reject);
            child.on('exit', (code) => resolve(code));
        });
        const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
        const timer = setTimeout(() => {
            timedOut = true;
            killGroup(child.pid);
        }, opts.timeoutMs ?? 20_000);
        const code = await exited;
        clearTimeout(timer);
        if (!timedOut) await opts.afterExit?.();
        killGroup(child.pid);
        // 组里留下的进程可能还拿着输出管道：杀掉之后最多再等一会儿，把已经写出的字读完
        await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2000))]);
        child.stdout.destroy();
        child.stderr.destroy();
        return {
            stdout: Buffer.concat(out).toString('utf8'),
            stderr: Buffer.concat(err).toString('utf8'),
            code: timedOut ? null : code,
            timedOut,
            requests: fake.requests.map((r) => r.body),
            rejected: fake.requests.flatMap((r) => (r.rejected === undefined ? [] : [r.rejected])),
            dir,
            home,
        };
    } finally {
        await fake.close();
    }
}

/** 最后一条 user 消息的文字（按内容决定回复时用）。 */
export function lastUser(body: any): string | undefined {
    const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
    const last = messages.filter((m) => m?.role === 'user').at(-1);
    if (!last) return undefined;
    return typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
}

/** 截短给 Miss 的 actual：超过 n 个字符时留头尾。 */
export function clip(value: string, n = 600): string {
    const chars = Array.from(value);
    if (chars.length <= n) return value;
    const head = Math.floor(n * 0.6);
    return `${chars.slice(0, head).join('')}\n…（省略 ${chars.length - n} 个字符）…\n${chars.slice(chars.length - (n - head)).join('')}`;
}

/** 给 Miss 的 actual 附上 stderr 的开头（学习者的 Agent 出错退出时，原因多半在这里）；没有就是空的。 */
export function stderrNote(run: LearnerRun): string {
    return run.stderr.trim() ? `\nstderr：${clip(run.stderr.trim(), 300)}` : '';
}
