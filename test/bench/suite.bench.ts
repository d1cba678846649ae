// 基准：测试套件本身有多快。读者会不会跑 npm test，取决于它要等多久。
// 目标（2 核机器）：npm run typecheck ≤ 20 秒；npm test ≤ 3 分钟。单独运行：npm run bench -- suite
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function timed(args: string[]): { seconds: number; output: string; ok: boolean } {
    const t0 = performance.now();
    const r = spawnSync('npm', ['run', '-s', ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    return { seconds: (performance.now() - t0) / 1000, output: r.stdout + r.stderr, ok: r.status === 0 };
}

export async function run(): Promise<void> {
    const tc = timed(['typecheck']);
    console.log(`npm run typecheck：${tc.seconds.toFixed(1)} 秒 ${tc.ok && tc.seconds <= 20 ? '✓' : '✗ 未达标'}`);
    const t = timed(['test']);
    const count = (name: string) => t.output.match(new RegExp(`^# ${name} (\\d+)`, 'm'))?.[1] ?? '?';
    console.log(`npm test：${t.seconds.toFixed(1)} 秒，${count('tests')} 个测试，通过 ${count('pass')}，失败 ${count('fail')} ${t.ok && t.seconds <= 180 ? '✓' : '✗ 未达标'}`);
}
