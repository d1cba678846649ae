// 以子进程运行某个阶段真实的入口文件：干净的环境变量、独立的临时工作目录和主目录、管道 stdin。
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// 教程的五个阶段（第 1、4、8、11、15 天），按顺序；目录名由天数拼出
export const STAGES: readonly string[] = [1, 4, 8, 11, 15].map((day) => `day${String(day).padStart(2, '0')}`);

// 从 first 开始、且磁盘上已有入口文件的阶段：某个功能从哪天引入，测试就从哪天起参数化
export function stagesFrom(first: string): string[] {
    const start = STAGES.indexOf(first);
    if (start < 0) throw new Error(`未知阶段：${first}（可选：${STAGES.join(', ')}）`);
    return STAGES.slice(start).filter((stage) => existsSync(path.join(REPO_ROOT, stage, 'index.ts')));
}

// 从本文件解析 tsx，子进程的 cwd 是临时目录，那里找不到 node_modules
const TSX_LOADER = import.meta.resolve('tsx');

// 没给 OPENAI_BASE_URL 时指向本机一个不监听的端口：测试绝不能意外连到真实服务
const OFFLINE_BASE_URL = 'http://127.0.0.1:9/v1';

export interface RunStageOptions {
    input: string | string[];                       // 数组按行写入（每行补 '\n'）；字符串原样写入
    env?: Record<string, string | undefined>;       // 覆盖默认值；值为 undefined 表示删除该变量（HOME 也可以在这里给）
    cwd?: string;                                   // 缺省为新建的临时目录
    timeoutMs?: number;                             // 缺省 30 秒，超时杀掉整个进程组并带上已收集的输出报错
    inputDelayMs?: number;                          // 逐行写入，每行之前等待这么久
    entry?: string;                                 // 入口文件绝对路径，覆盖 <仓库>/<stage>/index.ts
    onSpawn?: (child: ChildProcess) => void;        // 例如等请求到达后 child.kill('SIGINT')
}

export interface RunStageResult {
    stdout: string;
    stderr: string;
    code: number | null;
    signal: NodeJS.Signals | null;
    cwd: string;
    home: string;                                   // 这次运行的 HOME（信任记录等写在这里）
}

function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
    // 只带 PATH：父进程里真实的 OPENAI_*、NO_COLOR、NODE_OPTIONS 等一律不继承。
    // HOME 每次都是新建的临时目录：测试绝不碰真实主目录（信任记录写在 ~/.geekagent/ 下）
    const merged: Record<string, string | undefined> = {
        PATH: process.env.PATH,
        HOME: 'HOME' in extra ? extra.HOME : realpathSync(mkdtempSync(path.join(os.tmpdir(), 'geekagent-home-'))),
        OPENAI_API_KEY: 'sk-test-key-123456',
        OPENAI_MODEL: 'test-model',
        OPENAI_BASE_URL: OFFLINE_BASE_URL,
        ...extra,
    };
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(merged)) {
        if (value !== undefined) env[name] = value;
    }
    return env;
}

function inputLines(input: string | string[]): string[] {
    if (Array.isArray(input)) return input.map((line) => `${line}\n`);
    return input.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

export async function runStage(stage: string, opts: RunStageOptions): Promise<RunStageResult> {
    const entry = opts.entry ?? path.join(REPO_ROOT, stage, 'index.ts');
    // realpath：macOS 的 /tmp 是符号链接，和 process.cwd() 比较路径时会不一致
    const cwd = opts.cwd ?? realpathSync(mkdtempSync(path.join(os.tmpdir(), 'geekagent-test-')));
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const env = baseEnv(opts.env);

    const child = spawn(process.execPath, ['--import', TSX_LOADER, entry], {
        cwd,
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
        // 独立进程组：超时时连同它启动的 shell 命令、MCP 服务一起杀掉
        detached: process.platform !== 'win32',
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
    // 子进程提前退出时写 stdin 会 EPIPE，这不是测试失败的原因
    child.stdin!.on('error', () => {});
    opts.onSpawn?.(child);

    const output = () => ({
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
    });

    let timedOut = false;
    const timer = setTimeout(() => {
        timedOut = true;
        try {
            if (child.pid && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
            else child.kill('SIGKILL');
        } catch {
            // 进程已经退出
        }
    }, timeoutMs);

    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
        child.on('error', reject);
        child.on('close', (code, signal) => resolve({ code, signal }));
    });

    void (async () => {
        for (const line of inputLines(opts.input)) {
            if (opts.inputDelayMs) await new Promise((resolve) => setTimeout(resolve, opts.inputDelayMs));
            if (child.stdin!.destroyed) return;
            child.stdin!.write(line);
        }
        child.stdin!.end();
    })();

    try {
        const { code, signal } = await closed;
        const { stdout, stderr } = output();
        if (timedOut) {
            throw new Error(`运行超时（${timeoutMs} ms）：${entry}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`);
        }
        return { stdout, stderr, code, signal, cwd, home: env.HOME };
    } finally {
        clearTimeout(timer);
    }
}
