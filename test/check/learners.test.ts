// test/check/learners/ 里的学习者样例自己的规矩：少了历史的第 1 天（day1-repl-nohistory）除了开头的注释，
// 和 day1-repl 只差「把回答放回 history」那一行——检查判它不通过，只能是因为这一行。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/run-stage.ts';

const LEARNERS = path.join(REPO_ROOT, 'test/check/learners');
const body = (file: string) => fs.readFileSync(path.join(LEARNERS, file), 'utf8').replace(/^(\/\/.*\n)+/, '');

test('day1-repl-nohistory 就是 day1-repl 去掉把回答放回 history 的那一行', () => {
    const full = body('day1-repl/index.ts');
    const line = "        history.push({ role: 'assistant', content: answer });\n";
    assert.equal(full.split(line).length, 2, 'day1-repl 里要恰好有一行把回答放回 history');
    assert.equal(body('day1-repl-nohistory/index.ts'), full.replace(line, ''));
});
