// 跑检查。命令行在 scripts/check.ts，报告的样子在 format.ts；测试用这里导出的 runChecks（不经命令行，拿到每项的结果）：
//   const results = await runChecks({ entry: '/abs/day08/index.ts', days: [1, 2, 3] });
//   results.filter((r) => !r.ok)   // 每项有 check、ok、miss（期望 / 实际）、diagnosis（认出来的根本原因）、runs（它用过的运行）、ms
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { diagnose, type Diagnosis } from './diagnose.ts';
import { runLearner, type LearnerOptions, type LearnerRun } from './harness.ts';
import { limiter } from './limit.ts';
import { play } from './play.ts';
import { PIPE, type Spawner } from './spawn.ts';
import { Miss, type Check, type CheckContext, type Played, type Scenario } from './types.ts';

/** 同时跑几项：每项多半时间在等 Agent 空下来（见 typist.ts），2 核机器上 4 项同时跑也不挤。 */
const PARALLEL = 4;

const DAYS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'days');

export interface CheckResult {
    check: Check;
    ok: boolean;
    miss?: Miss;            // 不通过时：期望什么、实际是什么（检查自己出错也包成 Miss）
    diagnosis?: Diagnosis;  // 不通过时认出来的根本原因（diagnose.ts）
    runs: LearnerRun[];     // 这一项用过的运行（几项可以共用同一次）
    ms: number;
}

/** 命令行的退出码：必做的项都通过是 0（选做 ☆ 的不算），否则 1。 */
export const exitCode = (results: CheckResult[]): number => (results.every((r) => r.ok || r.check.optional) ? 0 : 1);

/** 某一天的检查：scripts/check/days/dayNN.ts 导出的 checks；这一天还没有检查文件时是空的。 */
export async function checksOf(day: number): Promise<Check[]> {
    const file = path.join(DAYS_DIR, `day${String(day).padStart(2, '0')}.ts`);
    if (!fs.existsSync(file)) return [];
    const mod = await import(pathToFileURL(file).href) as { checks: Check[] };
    return mod.checks;
}

interface Used { run: LearnerRun; refuses: boolean }

async function runOne(check: Check, shared: CheckContext): Promise<CheckResult> {
    const start = Date.now();
    const used: Used[] = [];
    const note = (scenario: Scenario | undefined) => <T extends LearnerRun & { then?: LearnerRun }>(run: T): T => {
        used.push({ run, refuses: Boolean(scenario?.refuses) });
        if (run.then) used.push({ run: run.then, refuses: Boolean(scenario?.then?.refuses) });
        return run;
    };
    const ctx: CheckContext = {
        entry: shared.entry,
        play: (scenario) => shared.play(scenario).then(note(scenario)),
        learner: (opts) => shared.learner(opts).then(note(undefined)),
    };
    const runs = () => used.map((u) => u.run);
    try {
        if ('scenario' in check) check.expect(await ctx.play(check.scenario));
        else await check.run(ctx);
        return { check, ok: true, runs: runs(), ms: Date.now() - start };
    } catch (error) {
        const miss = error instanceof Miss ? error : new Miss('检查跑完', `检查自己出错：${(error as Error)?.stack ?? String(error)}`);
        return { check, ok: false, miss, diagnosis: diagnose(used), runs: runs(), ms: Date.now() - start };
    }
}

/** 这次 runChecks 的检查共用的：同一个剧本对同一个入口只跑一次（几个检查看同一次运行的不同方面）。 */
function context(entry: string, extra: Partial<LearnerOptions>): CheckContext {
    const played = new Map<Scenario, Promise<Played>>();
    return {
        entry,
        play(scenario) {
            if (!played.has(scenario)) played.set(scenario, play(entry, scenario, extra));
            return played.get(scenario)!;
        },
        learner: (opts) => runLearner(entry, { ...extra, ...opts }),
    };
}

export interface RunOptions {
    entry: string;                          // 学习者 index.ts 的绝对路径
    days: number[];                         // 按这个顺序一天一天跑
    filter?: (check: Check) => boolean;     // 只跑其中一部分（测试用）
    parallel?: number;                      // 同时跑几项，缺省 PARALLEL
    onResult?: (result: CheckResult) => void; // 每项一出结果就按原顺序报告（命令行边跑边打印）
    spawner?: Spawner;                      // 怎样启动学习者的 Agent：缺省经管道
    quietMs?: number;                       // 输出静了多久才算 Agent 在等输入（见 typist.ts），缺省 QUIET_MS；测试用得短些
}

/** 跑这些天的检查：所有项排在一个队里，最多 parallel 项同时跑（多半时间在等 Agent，不占 CPU）；结果按天、按检查的顺序返回。 */
export async function runChecks(opts: RunOptions): Promise<CheckResult[]> {
    const ctx = context(opts.entry, { spawner: opts.spawner, quietMs: opts.quietMs });
    const limit = limiter(opts.parallel ?? PARALLEL);
    const wanted = opts.filter ?? (() => true);
    const checks: Check[] = [];
    for (const day of opts.days) {
        checks.push(...(await checksOf(day)).filter((c) => wanted(c) && !(c.pipeOnly && opts.spawner && opts.spawner !== PIPE)));
    }
    const pending = checks.map((check) => limit(() => runOne(check, ctx)));
    const all: CheckResult[] = [];
    for (const result of pending) {
        const r = await result;
        opts.onResult?.(r);
        all.push(r);
    }
    return all;
}
