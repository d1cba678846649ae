// 读者工具 npm run stages / npm run diff 的规则：一行算哪一天（days.ts）、阅读顺序、原教程的行数，
// 以及 issue 里点名的两个一天的 diff：第 15 天只有 MCP，第 3 天只有 shell 工具（连同它的进程组）和输入队列。
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { headerDay, hunkDay, originalDay, parseDiff, readingOrder, tagDay } from '../../scripts/days.ts';
import { isMcpFile } from '../../scripts/lessons.ts';
import { LESSONS, pieces, ROOT, STAGE_DAYS } from '../../scripts/stages.ts';

function diffCli(...args: string[]): string {
    return execFileSync(process.execPath, ['--import', 'tsx', 'scripts/diff.ts', ...args], {
        cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024,
    });
}

/** diff 输出里的新文件（按出现的顺序）和改动过的旧文件。 */
function filesIn(out: string): { added: string[]; edited: string[] } {
    const added: string[] = [];
    const edited: string[] = [];
    const rows = out.split('\n');
    rows.forEach((row, i) => {
        const m = /^diff --git a\/day\d\d\/(\S+) b\/day\d\d\/\S+$/.exec(row);
        if (m) (rows[i + 1].startsWith('new file') ? added : edited).push(m[1]);
    });
    return { added, edited };
}

describe('按天计数的规则', () => {
    test('「Day N：」标记：全角冒号，范围算第一天；「Day 8 起」不是标记', () => {
        assert.equal(tagDay('// Day 12：代码搜索'), 12);
        assert.equal(tagDay('    /** Day 2–3：时间工具和 shell 工具 */'), 2);
        assert.equal(tagDay('// Day 8 起多了 undo'), undefined);
        assert.equal(tagDay('// Day 8: 半角冒号'), undefined);
    });

    test('文件头：开头连续的注释行；第一行是分隔线时看它后面的注释', () => {
        assert.equal(headerDay(['// Day 7：全屏界面', "import x from './x.js';"]), 7);
        assert.equal(headerDay(['// —— 加固：进程组 ——', '// Day 3：shell 命令自成一组', 'const a = 1;']), 3);
        assert.equal(headerDay(['// 入口', "import x from './x.js';", '// Day 9：这里不是文件头']), undefined);
    });

    test('改动块：新增行的行号按新文件数；块记到新增行里第一个属于本阶段的标记，没有就记到最后一天', () => {
        const diff = parseDiff([
            'diff --git a/day08/chat.ts b/day11/chat.ts', '--- a/day08/chat.ts', '+++ b/day11/chat.ts',
            '@@ -3,3 +3,5 @@ class Chat {', ' a', '+    // Day 4：搬过来的旧代码，标记不属于这个阶段', '+    // Day 10：记忆', ' b', '-c', '+d',
            '@@ -20,2 +22,3 @@', ' e', '+f', ' g',
        ].join('\n'));
        assert.equal(diff.head.length, 3);
        assert.deepEqual(diff.hunks.map((h) => h.added.map((a) => a.line)), [[4, 5, 7], [23]]);
        assert.equal(diff.hunks[0].deleted, 1);
        assert.deepEqual(diff.hunks.map((h) => hunkDay(h, STAGE_DAYS.day11)), [10, 11]);
    });

    test('阅读顺序：一个文件排在所有导入它的文件之后，同一层按 import 的先后；入口够不到的放最后', () => {
        const graph = new Map([
            ['index.ts', ['chat.ts', 'tools.ts', 'color.ts']],
            ['chat.ts', ['llm.ts', 'tools.ts']],
            ['tools.ts', ['color.ts']],
            ['llm.ts', ['sse.ts']],
            ['sse.ts', []],
            ['color.ts', []],
            ['demo-server.mjs', []],
        ]);
        assert.deepEqual(readingOrder(graph), ['index.ts', 'chat.ts', 'tools.ts', 'llm.ts', 'color.ts', 'sse.ts', 'demo-server.mjs']);
    });

    test('原教程的行数：第 1 天、第 15 天是原文的数字，其余按阶段平均并标成估计', () => {
        assert.deepEqual(originalDay(1), { lines: 157, estimate: false });
        assert.deepEqual(originalDay(15), { lines: 314, estimate: false });
        assert.equal(originalDay(3).estimate, true);
        assert.equal(originalDay(2).lines + originalDay(3).lines + originalDay(4).lines, 570 - 157 + 1);   // 413 / 3 四舍五入
        assert.equal(originalDay(12).lines, Math.round((2506 - 1752 - 311) / 3));
    });
});

describe('npm run diff', () => {
    test('相邻的课和首尾两课都能比，每块改动都记到这两个阶段之间的某一天', () => {
        const pairs = [...LESSONS.slice(1).map((to, i) => [LESSONS[i], to]), [LESSONS[0], LESSONS.at(-1)!]];
        for (const [from, to] of pairs) {
            const days = LESSONS.slice(LESSONS.indexOf(from) + 1, LESSONS.indexOf(to) + 1).flatMap((s) => STAGE_DAYS[s]);
            const all = pieces(from, to, (f) => f !== 'README.md');
            assert.ok(all.length > 0, `${from} → ${to}`);
            for (const p of all) assert.ok(days.includes(p.day), `${from} → ${to}：${p.file} 记到第 ${p.day} 天`);
        }
    });

    test('不带 --day：按天分节，天的顺序从小到大', () => {
        const out = diffCli('day01', 'day04');
        const heads = [...out.matchAll(/^======== 第 (\d+) 天/gm)].map((m) => Number(m[1]));
        assert.deepEqual(heads, [2, 3, 4]);
    });

    test('day11 day15 --day 15：只有 MCP 客户端、接进 Agent 的一层和演示服务器这几个新文件，从接进 Agent 的一层往下读到连接，最后是线的另一端', () => {
        const { added } = filesIn(diffCli('day11', 'day15', '--day', '15'));
        const expected = pieces('day11', 'day15', () => true).filter((p) => p.status === 'new')
            .map((p) => p.file).filter((f) => isMcpFile(f) || f === 'demo-server.mjs');
        assert.deepEqual([...added].sort(), [...expected].sort());
        assert.ok(added.indexOf('mcp-setup.ts') < added.indexOf('mcp-client.ts'), added.join(' '));
        assert.equal(added.at(-1), 'demo-server.mjs');
    });

    test('day01 day04 --day 3：只有 shell 工具和输入队列', () => {
        const { added } = filesIn(diffCli('day01', 'day04', '--day', '3'));
        assert.deepEqual([...added].sort(), ['input.ts', 'shell.ts']);
    });

    test('跨几个阶段时 --day 比的是包含这一天的阶段和它的前一阶段；不在范围里的天报错', () => {
        assert.equal(diffCli('day01', 'day15', '--day', '3'), diffCli('day01', 'day04', '--day', '3').replace(/^/, '（第 3 天在 day04 里：比较的是 day01 和 day04）\n'));
        const bad = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/diff.ts', 'day08', 'day11', '--day', '3'], { cwd: ROOT, encoding: 'utf8' });
        assert.equal(bad.status, 2);
        assert.match(bad.stderr, /第 3 天不在 day08 到 day11 之间/);
    });
});
