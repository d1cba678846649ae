// test/check/learners/ 里的学习者样例：照章节、用原教程的 REPL 写法（rl.on('line') 加 busy 标志、忙时来的行丢掉，
// rl.on('close', () => process.exit(0))）自己写的第 1 天、第 4 天。检查像人一样打字，它们通过；少了历史的那一份不通过，提示放回 history。
// 少了历史的第 1 天（day1-repl-nohistory）除了开头的注释，和 day1-repl 只差「把回答放回 history」那一行——检查判它不通过，只能是因为这一行。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { formatResult } from '../../scripts/check/format.ts';
import { exitCode, runChecks, type CheckResult } from '../../scripts/check/report.ts';
import { REPO_ROOT } from '../helpers/run-stage.ts';
import { CHECK_QUIET_MS } from '../helpers/wait.ts';

const LEARNERS = path.join(REPO_ROOT, 'test/check/learners');
const body = (file: string) => fs.readFileSync(path.join(LEARNERS, file), 'utf8').replace(/^(\/\/.*\n)+/, '');
const check = (folder: string, day: number) => runChecks({ entry: path.join(LEARNERS, folder, 'index.ts'), days: Array.from({ length: day }, (_, i) => i + 1), quietMs: CHECK_QUIET_MS, parallel: 2 });
const failed = (results: CheckResult[]) => results.filter((r) => !r.ok && !r.check.optional);
const report = (results: CheckResult[]) => results.filter((r) => !r.ok).map((r) => formatResult(r)).join('\n\n');

test('day1-repl-nohistory 就是 day1-repl 去掉把回答放回 history 的那一行', () => {
    const full = body('day1-repl/index.ts');
    const line = "        history.push({ role: 'assistant', content: answer });\n";
    assert.equal(full.split(line).length, 2, 'day1-repl 里要恰好有一行把回答放回 history');
    assert.equal(body('day1-repl-nohistory/index.ts'), full.replace(line, ''));
});

describe('原教程写法的学习者样例', { concurrency: true }, () => {
    test('day1-repl 通过 check 1（☆ 提前打的行它丢掉：☆ ✘，退出码照样 0）', async () => {
        const results = await check('day1-repl', 1);
        assert.ok(results.length >= 6);
        assert.equal(exitCode(results), 0, report(results));
        assert.deepEqual(failed(results), []);
        const ahead = results.find((r) => r.check.optional && r.check.name.startsWith('忙时提前打的行不丢'));
        assert.equal(ahead?.ok, false, '丢行的 REPL 不该通过 ☆ 提前打的行');
        assert.match(formatResult(ahead!), /^☆ ✘ 第 1 天 · 忙时提前打的行不丢/);
    });

    test('day1-repl-nohistory 不通过 check 1：只有「多轮对话」一项，提示把回答放回 history', async () => {
        const results = await check('day1-repl-nohistory', 1);
        assert.equal(exitCode(results), 1);
        assert.deepEqual(failed(results).map((r) => r.check.name), ['多轮对话：第二轮请求带着第一轮的问答']);
        const said = formatResult(failed(results)[0]);
        assert.match(said, /提示：用户的话和模型的完整回答都要 push 进 history/);
        assert.ok(!said.includes('原因：'), said);   // 没有别的根本原因（提前退出、交叠……）掩盖它
    });

    test('day4-repl 通过 check 4（第 1–4 天每一项必做的）', async () => {
        const results = await check('day4-repl', 4);
        assert.deepEqual([...new Set(results.map((r) => r.check.day))], [1, 2, 3, 4]);
        assert.equal(exitCode(results), 0, report(results));
        assert.deepEqual(failed(results), []);
    });
});
