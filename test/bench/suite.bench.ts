// 基准：测试套件本身有多快。读者会不会跑 npm test，取决于它要等多久。
// 目标（空闲的 2 核机器）：npm run typecheck ≤ 20 秒；npm test ≤ 3 分钟；每一天的 npm run test:day -- N ≤ 30 秒。
// 单独运行：npm run bench -- suite。和另一份检出（比如改动之前的提交）比：npm run bench -- suite --base <目录> --runs 3，
// 两边的 npm test 轮流跑（基准、本仓库、基准、本仓库……），这样机器的忙闲对两边一样，报各自的中位数和比值；这时不跑每天的那一串。
// 先打印机器（CPU、核数、开始时的负载）：机器忙时墙钟时间会成倍变长，
// 所以也打印子进程用掉的 CPU 秒数（Linux 上从 /proc/self/stat 读，忙闲都差不多），README 里的数字就抄这里的输出。
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** 已结束的子进程累计用掉的 CPU 秒数（cutime + cstime）；没有 /proc 时是 NaN。 */
function childCpuSeconds(): number {
    try {
        const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
        return (Number(fields[13]) + Number(fields[14])) / 100;   // 第 16、17 个字段，单位是时钟滴答（Linux 上 100/秒）
    } catch {
        return NaN;
    }
}

function timed(args: string[], cwd = ROOT): { seconds: number; cpu: number; output: string; ok: boolean } {
    const t0 = performance.now();
    const cpu0 = childCpuSeconds();
    const r = spawnSync('npm', ['run', '-s', ...args], { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    return { seconds: (performance.now() - t0) / 1000, cpu: childCpuSeconds() - cpu0, output: r.stdout + r.stderr, ok: r.status === 0 };
}

const mark = (ok: boolean) => (ok ? '✓' : '✗ 未达标');

function median(xs: number[]): number {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** 跑一遍 npm test，打印一行，返回墙钟秒数。 */
function testOnce(label: string, cwd: string): number {
    const t = timed(['test'], cwd);
    const count = (name: string) => t.output.match(new RegExp(`^# ${name} (\\d+)`, 'm'))?.[1] ?? '?';
    console.log(`${label ? `${label} ` : ''}npm test：${t.seconds.toFixed(1)} 秒（CPU ${t.cpu.toFixed(1)} 秒），${count('tests')} 个测试，`
        + `通过 ${count('pass')}，失败 ${count('fail')} ${mark(t.ok && t.seconds <= 180)}`);
    for (const line of t.output.match(/^ *not ok .*$/gm) ?? []) console.log(`    ${line.trim()}`);   // 没通过的是哪几项
    return t.seconds;
}

export async function run(): Promise<void> {
    const options = { base: { type: 'string' }, runs: { type: 'string', default: '1' } } as const;
    const { values } = parseArgs({ args: process.argv.slice(3), options });
    const runs = Math.max(1, Number(values.runs) || 1);
    const base = values.base === undefined ? undefined : path.resolve(values.base);
    const load = os.loadavg().map((n) => n.toFixed(1)).join(' / ');
    console.log(`机器：${os.cpus()[0]?.model ?? '?'}，${os.cpus().length} 核，Node ${process.version}；开始时负载（1/5/15 分钟）${load}`);
    const tc = timed(['typecheck']);
    console.log(`npm run typecheck：${tc.seconds.toFixed(1)} 秒（CPU ${tc.cpu.toFixed(1)} 秒）${mark(tc.ok && tc.seconds <= 20)}`);
    const mine: number[] = [];
    const theirs: number[] = [];
    for (let i = 1; i <= runs; i++) {
        if (base) theirs.push(testOnce(`第 ${i} 次 基准（${base}）`, base));
        mine.push(testOnce(base || runs > 1 ? `第 ${i} 次 本仓库` : '', ROOT));
    }
    if (runs > 1) console.log(`本仓库 npm test 中位数 ${median(mine).toFixed(1)} 秒（${runs} 次）`);
    if (base) {
        const ratio = median(mine) / median(theirs);
        console.log(`基准 npm test 中位数 ${median(theirs).toFixed(1)} 秒；本仓库是基准的 ${(ratio * 100).toFixed(0)}%`);
        console.log(`结束时负载 ${os.loadavg().map((n) => n.toFixed(1)).join(' / ')}`);
        return;
    }
    for (let day = 1; day <= 15; day++) {
        const d = timed(['test:day', '--', String(day)]);
        const tests = d.output.match(/^# tests (\d+)/m)?.[1] ?? '?';
        const skipped = d.output.match(/^# skipped (\d+)/m)?.[1] ?? '?';
        console.log(`npm run test:day -- ${day}：${d.seconds.toFixed(1)} 秒（CPU ${d.cpu.toFixed(1)} 秒），${tests} 个测试，跳过 ${skipped} ${mark(d.ok && d.seconds <= 30)}`);
    }
    console.log(`结束时负载 ${os.loadavg().map((n) => n.toFixed(1)).join(' / ')}`);
}
