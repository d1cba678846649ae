// 以子进程运行某个阶段真实的入口文件：干净的环境变量、独立的临时工作目录和主目录、管道 stdin。
// 测试跑 Agent 只有这一个办法：runStage 跑完拿结果；startStage 在运行中途还要做事（等一行输出、发信号）时用。
// 要假模型的常见情形用 agent.ts 的 runAgent，它也是经这里启动的。进程本身由 scripts/check/spawn.ts 启动（npm run check 用的同一份）。
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEADLINE_MS, nodeCommand, startAgent } from '../../scripts/check/spawn.ts';
import { HARDENED, STAGES } from '../../scripts/days.ts';
import { compiledEntry } from './compiled.ts';
import { homeFor, workdir } from './workdir.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// 从 first 开始、且磁盘上已有入口文件的阶段（各课，最后是加固版）：课承诺的行为（test/stages/lessons.test.ts、sse-fixtures.test.ts）
// 从引入它的那一课起测，加固版也测。GEEKAGENT_TEST_STAGE=day04（npm run test:day 设的）只留这一课：其余的测试根本不生成，不会满屏 skipped
export function stagesFrom(first: string): string[] {
    const start = STAGES.indexOf(first);
    if (start < 0) throw new Error(`未知阶段：${first}（可选：${STAGES.join(', ')}）`);
    const only = process.env.GEEKAGENT_TEST_STAGE;
    return STAGES.slice(start).filter((stage) => (!only || stage === only) && existsSync(path.join(REPO_ROOT, stage, 'index.ts')));
}

// 加固的测试只在加固版上跑（课只教主路径，不带加固；课由检查、演示、sse-fixtures.test.ts 和 lessons.test.ts 测）。
// 写成一张表，测试照旧 for (const stage of HARDENED_ONLY) { describe(`${stage}: …`) }；npm run test:day 也跑它们
export const HARDENED_ONLY: string[] = [HARDENED];

// 没给 OPENAI_BASE_URL 时指向本机一个不监听的端口：测试绝不能意外连到真实服务
const OFFLINE_BASE_URL = 'http://127.0.0.1:9/v1';

export interface RunStageOptions {
    input: string | string[];                       // 数组按行写入（每行补 '\n'）；字符串原样写入
    env?: Record<string, string | undefined>;       // 覆盖默认值；值为 undefined 表示删除该变量（HOME 也可以在这里给）
    cwd?: string;                                   // 缺省为新建的临时目录
    timeoutMs?: number;                             // 兜底的期限，缺省 DEADLINE_MS；超时杀掉整个进程组并带上已收集的输出报错
    holdStdin?: boolean;                            // 写完 input 不关 stdin（不发 EOF）：退出只能来自信号，或测试自己 end()
    entry?: string;                                 // 经 tsx 跑的 .ts 入口文件（绝对路径）；缺省跑转成 JS 的 <stage>/index.ts
    stderrToStdout?: boolean;                       // 像 agent 2>&1 | … 那样 stderr 和 stdout 是同一个管道（经 sh 的 2>&1）；stderr() 总是空的
    onSpawn?: (child: ChildProcess) => void;        // 进程刚启动时调用；新写的测试用 startStage 拿到进程更直接
}

export interface RunStageResult {
    stdout: string;
    stderr: string;
    code: number | null;
    signal: NodeJS.Signals | null;
    cwd: string;
    home: string;                                   // 这次运行的 HOME（信任记录等写在这里）
}

/** 正在运行的一个阶段：随时读已有的输出、再写几行、发信号；done 是 runStage 会返回的结果。 */
export interface RunningStage {
    child: ChildProcess;
    stdout(): string;
    stderr(): string;
    write(line: string): void;                      // 写一行（补 '\n'）
    end(): void;                                    // 关掉 stdin：Agent 读到 EOF
    done: Promise<RunStageResult>;
}

function baseEnv(cwd: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
    // 只带 PATH：父进程里真实的 OPENAI_*、NO_COLOR、NODE_OPTIONS 等一律不继承。
    // HOME 是临时目录，每个工作文件夹一个（homeFor）：测试绝不碰真实主目录（信任记录等写在 ~/.geekagent/ 下）
    const merged: Record<string, string | undefined> = {
        PATH: process.env.PATH,
        HOME: 'HOME' in extra ? extra.HOME : homeFor(cwd),
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

function inputText(input: string | string[]): string {
    return Array.isArray(input) ? input.map((line) => `${line}\n`).join('') : input;
}

/** 跑一个阶段的命令行：阶段入口已经转成 JS（见 compiled.ts）；测试自己给的入口（.ts）照样经 tsx。 */
export function stageCommand(stage: string, entry?: string): string[] {
    return nodeCommand(entry ?? compiledEntry(stage));
}

export function startStage(stage: string, opts: RunStageOptions): RunningStage {
    const entry = opts.entry ?? path.join(stage, 'index.ts');
    const cwd = opts.cwd ?? workdir();
    const timeoutMs = opts.timeoutMs ?? DEADLINE_MS;
    const env = baseEnv(cwd, opts.env);
    const run = startAgent(stageCommand(stage, opts.entry), { cwd, env, timeoutMs, stderrToStdout: opts.stderrToStdout });
    opts.onSpawn?.(run.child);
    run.write(inputText(opts.input));
    if (!opts.holdStdin) run.end();

    const done = new Promise<RunStageResult>((resolve, reject) => {
        run.exited.catch(reject);
        run.child.on('close', (code, signal) => {
            if (run.timedOut()) {
                reject(new Error(`运行超时（${timeoutMs} ms）：${entry}\n--- stdout ---\n${run.stdout()}\n--- stderr ---\n${run.stderr()}`));
            } else {
                resolve({ stdout: run.stdout(), stderr: run.stderr(), code, signal, cwd, home: env.HOME });
            }
        });
    });

    return {
        child: run.child,
        stdout: run.stdout,
        stderr: run.stderr,
        write: (line) => run.typeLine(line),
        end: () => run.end(),
        done,
    };
}

export function runStage(stage: string, opts: RunStageOptions): Promise<RunStageResult> {
    return startStage(stage, opts).done;
}
