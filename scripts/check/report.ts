// 跑检查、写报告。命令行在 scripts/check.ts；测试用这里导出的 runChecks（不经命令行，拿到每项的结果）：
//   const results = await runChecks({ entry: '/abs/day08/index.ts', days: [1, 2, 3] });
//   results.filter((r) => !r.ok)   // 每项有 check、ok、miss（期望 / 实际）、ms
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runLearner, type LearnerOptions } from './harness.js';
import { limiter } from './limit.js';
import { clip } from './look.js';
import { play } from './play.js';
import type { Spawner } from './spawn.js';
import { Miss, type Check, type CheckContext, type Played, type Scenario } from './types.js';

const DAYS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'days');

export interface CheckResult {
    check: Check;
    ok: boolean;
    miss?: Miss;            // 不通过时：期望什么、实际是什么（检查自己出错也包成 Miss）
    ms: number;
}

/** 某一天的检查：scripts/check/days/dayNN.ts 导出的 checks；这一天还没有检查文件时是空的。 */
export async function checksOf(day: number): Promise<Check[]> {
    const file = path.join(DAYS_DIR, `day${String(day).padStart(2, '0')}.ts`);
    if (!fs.existsSync(file)) return [];
    const mod = await import(pathToFileURL(file).href) as { checks: Check[] };
    return mod.checks;
}

async function runOne(check: Check, ctx: CheckContext): Promise<CheckResult> {
    const start = Date.now();
    try {
        if ('scenario' in check) check.expect(await ctx.play(check.scenario));
        else await check.run(ctx);
        return { check, ok: true, ms: Date.now() - start };
    } catch (error) {
        const miss = error instanceof Miss ? error : new Miss('检查跑完', `检查自己出错：${(error as Error)?.stack ?? String(error)}`);
        return { check, ok: false, miss, ms: Date.now() - start };
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
    parallel?: number;                      // 同一天同时跑几项，缺省 2（2 核机器上每天 30 秒以内）
    onResult?: (result: CheckResult) => void; // 每项一出结果就按原顺序报告（命令行边跑边打印）
    spawner?: Spawner;                      // 怎样启动学习者的 Agent：缺省经管道
    quietMs?: number;                       // 输出静了多久才算 Agent 在等输入（见 typist.ts），缺省 QUIET_MS；测试用得短些
}

/** 跑这些天的检查：一天跑完再跑下一天；同一天的几项同时跑，结果按检查的顺序返回。 */
export async function runChecks(opts: RunOptions): Promise<CheckResult[]> {
    const all: CheckResult[] = [];
    const ctx = context(opts.entry, { spawner: opts.spawner, quietMs: opts.quietMs });
    for (const day of opts.days) {
        const limit = limiter(opts.parallel ?? 2);
        const checks = (await checksOf(day)).filter(opts.filter ?? (() => true));
        const pending = checks.map((check) => limit(() => runOne(check, ctx)));
        for (const result of pending) {
            const r = await result;
            opts.onResult?.(r);
            all.push(r);
        }
    }
    return all;
}

const indent = (label: string, value: string) => {
    const [first, ...rest] = value.split('\n');
    return [`    ${label}${first}`, ...rest.map((line) => `          ${line}`)].join('\n');
};

/** 一项的报告：通过一行；不通过再加期望、实际（截短）、提示、重读哪一节。 */
export function formatResult(r: CheckResult): string {
    const head = `${r.ok ? '✔' : '✘'} 第 ${r.check.day} 天 · ${r.check.name}`;
    if (r.ok || !r.miss) return head;
    return [
        head,
        indent('期望：', r.miss.expected),
        indent('实际：', clip(r.miss.actual)),
        indent('提示：', r.check.hint),
        indent('重读：', r.check.section),
    ].join('\n');
}

export function summary(results: CheckResult[], days: number[]): string {
    const failed = results.filter((r) => !r.ok).length;
    const empty = days.filter((day) => !results.some((r) => r.check.day === day));
    const range = days.length === 1 ? `第 ${days[0]} 天` : `第 ${days[0]}–${days.at(-1)} 天`;
    const lines = [failed === 0
        ? `${range}：${results.length} 项全部通过。`
        : `${range}：${results.length} 项里 ${results.length - failed} 项通过，${failed} 项没通过。`];
    if (empty.length) lines.push(`（第 ${empty.join('、')} 天还没有检查）`);
    return lines.join('\n');
}
