// 第 1–8 天的检查自己也要经得起检验：本仓库的每个阶段通过它含有的第 1–8 天的每一项；每一项的「重读」链接指向真有的标题；
// 命令行的退出码、--only、--init 照说明工作。阶段用转好的 JS 入口跑（和 tsx 跑的是同一份代码，见 test/stages/entry.test.ts），
// 省下每次启动 tsx 的时间。每个（阶段, 天）一个测试，同时最多跑三个，项多的天排在前面。
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { limiter } from '../../scripts/check/limit.ts';
import { formatResult } from '../../scripts/check/format.ts';
import { checksOf, runChecks } from '../../scripts/check/report.ts';
import { STAGE_DAYS } from '../../scripts/days.ts';
import { compiledEntry } from '../helpers/compiled.ts';
import { anchors } from '../helpers/markdown.ts';
import { REPO_ROOT } from '../helpers/run-stage.ts';
import { CHECK_QUIET_MS } from '../helpers/wait.ts';
import { workdir } from '../helpers/workdir.ts';

const limited = limiter(3);

const ORDER = [8, 4, 2, 3, 1, 6, 5, 7];
const CASES: [string, number][] = ORDER.flatMap((day) => Object.entries(STAGE_DAYS)
    .filter(([, days]) => days.at(-1)! >= day)
    .map(([stage]): [string, number] => [stage, day]));

describe('第 1–8 天的检查：本仓库的阶段全部通过', { concurrency: true }, () => {
    for (const [stage, day] of CASES) {
        test(`${stage} 通过第 ${day} 天的每一项`, async () => {
            const results = await limited(() => runChecks({ entry: compiledEntry(stage), days: [day], quietMs: CHECK_QUIET_MS, parallel: 2 }));
            assert.ok(results.length >= 2, `第 ${day} 天只有 ${results.length} 项检查`);
            assert.equal(results.filter((r) => !r.ok).map((r) => formatResult(r)).join('\n\n'), '');
        });
    }
});

test('每一项检查（第 1–15 天）的「重读」都指向章节里真有的标题', async () => {
    const bad: string[] = [];
    for (let day = 1; day <= 15; day++) {
        for (const check of await checksOf(day)) {
            const [file, anchor] = check.section.split('#');
            const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
            if (!anchor || !anchors(text).has(anchor)) bad.push(`第 ${day} 天「${check.name}」：${check.section}`);
        }
    }
    assert.deepEqual(bad, []);
});

const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'scripts/check.ts'), ...args, '--quiet', String(CHECK_QUIET_MS)], {
    cwd: REPO_ROOT, encoding: 'utf8', env: { PATH: process.env.PATH, INIT_CWD: REPO_ROOT },
});

test('npm run check -- 1：缺省检查 day01，一项一行 ✔，全部通过时退出码 0', () => {
    const r = cli('1');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const lines = r.stdout.split('\n').filter((l) => /^(☆ )?[✔✘] /.test(l));
    assert.ok(lines.length >= 2 && lines.every((l) => /^(☆ )?✔ 第 1 天 · /.test(l)), r.stdout);
    assert.match(r.stdout, /第 1 天：\d+ 项全部通过。/);
});

test('--init 把第 N 天之前的阶段复制进新文件夹、列出第 N 天的清单；文件夹不空就不动它', async () => {
    const folder = path.join(workdir(), 'my-day05');
    const r = cli('5', folder, '--init');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.deepEqual(fs.readdirSync(folder).sort(), fs.readdirSync(path.join(REPO_ROOT, 'day04')).sort());
    const listed = r.stdout.split('\n').filter((l) => l.startsWith('☐ '));
    assert.deepEqual(listed, (await checksOf(5)).map((c) => `☐ ${c.optional ? '☆ ' : ''}第 5 天 · ${c.name}`));
    assert.match(r.stdout, /npm run check -- 5 /);

    const again = cli('5', folder, '--init');
    assert.equal(again.status, 2);
    assert.match(again.stderr, /不是空的/);
});

test('章节和根 README 里抄的 ✘ 输出和现在的检查对得上（名字、选做 ☆、提示、重读）', async () => {
    const all = new Map<string, Awaited<ReturnType<typeof checksOf>>[number]>();
    for (let day = 1; day <= 15; day++) for (const c of await checksOf(day)) all.set(`第 ${day} 天 · ${c.name}`, c);
    const stale: string[] = [];
    for (const file of ['README.md', 'day01/README.md', 'day04/README.md', 'day08/README.md', 'day11/README.md', 'day15/README.md']) {
        const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
        for (const [, star, block] of text.matchAll(/\n(☆ )?✘ ([^]*?)(?=\n```)/g)) {
            const [title, ...rest] = block.split('\n');
            const check = all.get(title);
            const line = (label: string) => rest.find((l) => l.startsWith(`    ${label}`))?.slice(4 + label.length);
            // 认出了根本原因的 ✘ 说原因、不一定有这一项的提示，重读的是原因那一节（它也要真有，见上一个测试的 anchors）
            const reason = line('原因：');
            const section = line('重读：');
            const [file2, anchor] = (section ?? '').split('#');
            if (!check) stale.push(`${file}：没有这一项：${title}`);
            else if (Boolean(star) !== Boolean(check.optional)) stale.push(`${file}：「${title}」的选做 ☆ 和检查里的不一样`);
            else if (line('提示：') === undefined ? !reason : line('提示：') !== check.hint) stale.push(`${file}：「${title}」的提示和检查里的不一样`);
            else if (section !== undefined && section !== check.section && !(reason && anchors(fs.readFileSync(path.join(REPO_ROOT, file2), 'utf8')).has(anchor))) {
                stale.push(`${file}：「${title}」的重读和检查里的不一样`);
            }
        }
    }
    assert.deepEqual(stale, []);
});
