// 仓库自己的规矩：读者一次读得完的文件、没有循环导入、每课不超过它的上限、换成课的阶段守课的规矩（scripts/lessons.ts）、
// 课之间以新增为主、README 的行数表没有过期、相对 import 写 .ts 文件的名字、仓库不引用自身以外的任何东西。
// 这些都没法靠运行 Agent 发现，所以在这里检查。数行、读 import 的办法都用 scripts/stages.ts 导出的那一份，和 npm run stages 算的是同一个数。
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { LESSON_CAPS, lessonProblems } from '../../scripts/lessons.ts';
import {
    countLines, importsOf, LESSONS, readmeTable, ROOT, sourceFiles, STAGE_DAYS, stageStats, STAGES, tableIn,
} from '../../scripts/stages.ts';
import { jsSpecifiersToTs } from '../helpers/specifiers.ts';
import { workdir } from '../helpers/workdir.ts';

const all = LESSONS.map(stageStats);
/** 磁盘上有的阶段（课和加固版）。 */
const present = STAGES.filter((stage) => fs.existsSync(path.join(ROOT, stage)));

/** 仓库里的文件：有 git 时按 git 跟踪的算；从压缩包解出来没有 .git 时，走一遍目录（跳过 node_modules 和隐藏目录）。 */
function trackedFiles(): string[] {
    try {
        return execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n').filter(Boolean);
    } catch {
        const out: string[] = [];
        const walk = (dir: string) => {
            for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
                if (e.name === 'node_modules' || (e.name.startsWith('.') && e.name !== '.ci')) continue;
                if (e.isDirectory()) walk(path.join(dir, e.name));
                else out.push(path.join(dir, e.name));
            }
        };
        walk('');
        return out;
    }
}

describe('仓库规矩', () => {
    test('每个阶段（课和加固版）的源文件都不超过 300 行', () => {
        const long = present.flatMap((stage) => sourceFiles(stage).map((file) => ({ file, lines: countLines(path.join(ROOT, stage, file)) }))
            .filter((f) => f.lines > 300).map((f) => `${stage}/${f.file}：${f.lines} 行`));
        assert.deepEqual(long, []);
    });

    test('每个阶段内部没有循环导入', () => {
        for (const stage of present) {
            const files = sourceFiles(stage);
            const graph = new Map(files.map((f) => [f, importsOf(stage, f, files)]));
            const done = new Set<string>();
            const visit = (f: string, stack: string[]) => {
                assert.ok(!stack.includes(f), `${stage}：循环导入 ${[...stack.slice(stack.indexOf(f)), f].join(' → ')}`);
                if (done.has(f)) return;
                for (const d of graph.get(f)!) visit(d, [...stack, f]);
                done.add(f);
            };
            for (const f of files) visit(f, []);
        }
    });

    test('每课不超过它的行数上限（除 README.md 以外的每个文件；上限只降不升，见 scripts/lessons.ts）', () => {
        const over = all.filter((s) => s.lines > LESSON_CAPS[s.stage]).map((s) => `${s.stage}：${s.lines} 行，上限 ${LESSON_CAPS[s.stage]}`);
        assert.deepEqual(over, []);
    });

    test('换成课的阶段守课的规矩：没有分隔线，一行 ≤ 140 字符，只 import node: 和自己的文件，class ≤ 120 行，每天 ≤ 500 行（第 7 天 800），'
        + 'Day 15 的 MCP 代码 ≤ 250 行、≤ 3 个文件，demo-server.mjs ≤ 80 行', () => {
        const problems = all.flatMap((s) => lessonProblems(ROOT, s.stage, s.files.map((r) => r.file), s.days));
        assert.deepEqual(problems, []);
    });

    test('课的规矩查得出每一种违反', () => {
        const files: Record<string, string> = {
            'index.ts': [
                "import fs from 'node:fs';", "import { x } from './x.ts';", "import { y } from '../elsewhere/y.ts';", "import chalk from 'chalk';",
                '// —— 加固：不该有 ——', `// ${'长'.repeat(141)}`, 'export class Big {', ...Array(119).fill('    a = 1;'), '}',
            ].join('\n'),
            'x.ts': 'export const x = 1;\n',
            'mcp.ts': 'a\n'.repeat(200), 'mcp-config.ts': 'b\n'.repeat(40), 'jsonrpc.ts': 'c\n'.repeat(5), 'mcp-trust.ts': 'd\n'.repeat(5),
            'demo-server.mjs': 'e\n'.repeat(81),
        };
        const dir = workdir(files);
        const problems = lessonProblems(path.dirname(dir), path.basename(dir), Object.keys(files), [{ day: 6, lines: 501 }, { day: 7, lines: 800 }]).join('\n');
        for (const expected of [/index\.ts：import '\.\.\/elsewhere\/y\.ts'/, /import 'chalk'/, /index\.ts:5：课里没有/, /index\.ts:6：一行 144 个字符/,
            /index\.ts:7：class Big 121 行/, /第 6 天加了 501 行，最多 500/, /MCP 代码 4 个文件 250 行/, /demo-server\.mjs：81 行/]) {
            assert.match(problems, expected);
        }
        assert.doesNotMatch(problems, /node:fs|\.\/x\.ts|第 7 天/);
        assert.equal(problems.split('\n').length, 8, problems);
    });

    test('每课相对前一课以新增为主（新增行占改动的 90% 以上）', () => {
        for (const s of all.slice(1)) {
            const share = s.add / (s.add + s.del);
            assert.ok(share >= 0.9, `${s.stage}：+${s.add} -${s.del}，新增占比 ${Math.round(share * 100)}%`);
        }
    });

    test('每课 README 里的文件与行数表是 npm run stages -- --readme 生成的最新结果', () => {
        for (const s of all) {
            const table = tableIn(fs.readFileSync(path.join(ROOT, s.stage, 'README.md'), 'utf8'));
            assert.ok(table !== undefined, `${s.stage}/README.md 缺少生成标记`);
            assert.equal(table, readmeTable(s), `${s.stage}/README.md 的表过期了：运行 npm run stages -- --readme`);
        }
    });

    test('每课 README 是它那几天的章节：每天一节「## 第 N 天：…」，按天的顺序', () => {
        for (const stage of LESSONS) {
            const readme = fs.readFileSync(path.join(ROOT, stage, 'README.md'), 'utf8');
            const found = [...readme.matchAll(/^## 第 (\d+) 天：/gm)].map((m) => Number(m[1]));
            assert.deepEqual(found, STAGE_DAYS[stage], `${stage}/README.md 的章节`);
        }
    });

    test('阶段目录名只出现在启动横幅里', () => {
        for (const stage of present) {
            for (const file of sourceFiles(stage)) {
                fs.readFileSync(path.join(ROOT, stage, file), 'utf8').split('\n').forEach((line, n) => {
                    if (/\b(day\d\d|hardened)\b/.test(line)) assert.match(line, /BANNER/, `${stage}/${file}:${n + 1}：${line.trim()}`);
                });
            }
        }
    });

    test('相对 import 写 .ts 文件自己的名字（./x.ts），不写 ./x.js：node 直接跑 .ts 时不会替你换', () => {
        // 照教程写法的学习者示例（test/check/solution-*/、test/check/learners/）保留 ./x.js：npm run check 用 tsx 跑学习者的文件夹，教程里的代码就是这样写的
        const learner = /^test\/check\/(solution-[^/]+|learners)\//;
        const code = trackedFiles().filter((f) => /^(day\d+|hardened|scripts|test)\//.test(f) && /\.(ts|mts|mjs)$/.test(f) && !/\.d\.m?ts$/.test(f) && !learner.test(f));
        assert.deepEqual(jsSpecifiersToTs(ROOT, code.filter((f) => fs.existsSync(path.join(ROOT, f)))), [],
            '把这些说明符改成 .ts');
    });

    test('仓库里没有任何文件指向仓库之外的参考资料目录', () => {
        // 模式拆开写，免得本文件自己命中
        const outside = new RegExp(['\\.\\./', 'shared'].join('') + '|' + ['shared', '/(spec|fixtures|tools|articles)'].join(''));
        const tracked = trackedFiles();
        const hits = tracked.filter((f) => fs.existsSync(path.join(ROOT, f)) && outside.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
        assert.deepEqual(hits, []);
    });
});
