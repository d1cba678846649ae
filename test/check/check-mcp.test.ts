// 第 9–15 天的检查自己也要经得起检验：本仓库的阶段通过它们含有的每一天，照章节写的最小第 15 天解答通过第 15 天。
// 每个（文件夹, 天）一个测试，同时最多跑三个；等得最久的第 15 天（「10 秒没有回答」要等满 10 秒）排在前面先开始。
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { limiter } from '../../scripts/check/limit.ts';
import { formatResult } from '../../scripts/check/format.ts';
import { runChecks } from '../../scripts/check/report.ts';
import { compiledCopy } from '../helpers/compiled.ts';
import { REPO_ROOT } from '../helpers/run-stage.ts';
import { CHECK_QUIET_MS } from '../helpers/wait.ts';

const limited = limiter(3);

const SOLUTION = 'test/check/solution-day15';
const CASES: [string, number][] = [
    ['day15', 15], [SOLUTION, 15],
    ...[9, 10, 11, 12, 13, 14].map((day): [string, number] => ['day15', day]),
    ...[9, 10, 11].map((day): [string, number] => ['day11', day]),
];

describe('第 9–15 天的检查', { concurrency: true }, () => {
    for (const [folder, day] of CASES) {
        const who = folder === SOLUTION ? '照章节写的最小第 15 天解答（没有确认、信任问题和加固）' : folder;
        test(`${who} 通过第 ${day} 天的每一项`, async () => {
            const results = await limited(() => runChecks({ entry: compiledCopy(path.join(REPO_ROOT, folder, 'index.ts')), days: [day], quietMs: CHECK_QUIET_MS, parallel: 2 }));
            assert.ok(results.length >= 2, `第 ${day} 天只有 ${results.length} 项检查`);
            assert.equal(results.filter((r) => !r.ok).map((r) => formatResult(r)).join('\n\n'), '');
        });
    }
});
