// 仓库自己的规矩：读者一次读得完的文件、没有循环导入、阶段之间以新增为主、核心在分隔线以上且不超过上限、
// README 的行数表没有过期、相对 import 写 .ts 文件的名字、仓库不引用自身以外的任何东西。这些都没法靠运行 Agent 发现，所以在这里检查。
// 数行、找分隔线、读 import 的办法都用 scripts/stages.ts 导出的那一份，和 npm run stages 算的是同一个数。
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
    CORE_LIMITS, DIVIDER, fileLines, importsOf, MCP_CORE_LIMIT, mcpClient, readmeTable, ROOT, sourceFiles, STAGE_DAYS, stageStats, STAGES,
    tableIn,
} from '../../scripts/stages.ts';
import { jsSpecifiersToTs } from '../helpers/specifiers.ts';

const all = STAGES.map(stageStats);

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
    test('每个阶段的源文件都不超过 300 行（阶段总行数不设上限：第一遍读的核心另有上限，见下）', () => {
        const long = all.flatMap((s) => s.files.filter((f) => f.lines > 300).map((f) => `${s.stage}/${f.file}：${f.lines} 行`));
        assert.deepEqual(long, []);
    });

    test('每个阶段内部没有循环导入', () => {
        for (const stage of STAGES) {
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

    test('每个源文件最多一条分隔线，写成「// —— 加固…」', () => {
        // 像分隔线的行（注释里一串破折号后面跟「加固」）都算：写歪了的不会被当成分隔线，核心行数就悄悄变多
        const looksLike = /^\s*\/\/\s*[-—–]+\s*加固/;
        const bad: string[] = [];
        for (const stage of STAGES) {
            for (const file of sourceFiles(stage)) {
                const lines = fileLines(path.join(ROOT, stage, file)).map((l, n) => ({ l, n })).filter(({ l }) => looksLike.test(l) || DIVIDER.test(l));
                if (lines.length > 1) bad.push(`${stage}/${file}：${lines.length} 条分隔线（第 ${lines.map(({ n }) => n + 1).join('、')} 行）`);
                for (const { l, n } of lines) if (!/^\s*\/\/ —— 加固/.test(l)) bad.push(`${stage}/${file}:${n + 1}：${l.trim()}`);
            }
        }
        assert.deepEqual(bad, []);
    });

    test('每个阶段的核心（分隔线以上）不超过上限；day15 的 MCP 客户端核心不超过 300 行', () => {
        const over = all.filter((s) => s.core > CORE_LIMITS[s.stage]).map((s) => `${s.stage}：核心 ${s.core} 行，上限 ${CORE_LIMITS[s.stage]}`);
        assert.deepEqual(over, []);
        const mcp = mcpClient(all.find((s) => s.stage === 'day15')!);
        assert.ok(mcp.core <= MCP_CORE_LIMIT, `MCP 客户端核心 ${mcp.core} 行，上限 ${MCP_CORE_LIMIT}`);
    });

    test('每个阶段相对前一阶段以新增为主（新增行占改动的 93% 以上）', () => {
        for (const s of all.slice(1)) {
            const share = s.add / (s.add + s.del);
            assert.ok(share >= 0.93, `${s.stage}：+${s.add} -${s.del}，新增占比 ${Math.round(share * 100)}%`);
        }
    });

    test('每个阶段 README 里的文件与行数表是 npm run stages -- --readme 生成的最新结果', () => {
        for (const s of all) {
            const table = tableIn(fs.readFileSync(path.join(ROOT, s.stage, 'README.md'), 'utf8'));
            assert.ok(table !== undefined, `${s.stage}/README.md 缺少生成标记`);
            assert.equal(table, readmeTable(s), `${s.stage}/README.md 的表过期了：运行 npm run stages -- --readme`);
        }
    });

    test('每个阶段 README 是它那几天的章节：每天一节「## 第 N 天：…」，按天的顺序', () => {
        for (const stage of STAGES) {
            const readme = fs.readFileSync(path.join(ROOT, stage, 'README.md'), 'utf8');
            const found = [...readme.matchAll(/^## 第 (\d+) 天：/gm)].map((m) => Number(m[1]));
            assert.deepEqual(found, STAGE_DAYS[stage], `${stage}/README.md 的章节`);
        }
    });

    test('阶段目录名只出现在启动横幅里', () => {
        for (const stage of STAGES) {
            for (const file of sourceFiles(stage)) {
                fs.readFileSync(path.join(ROOT, stage, file), 'utf8').split('\n').forEach((line, n) => {
                    if (/\bday\d\d\b/.test(line)) assert.match(line, /BANNER/, `${stage}/${file}:${n + 1}：${line.trim()}`);
                });
            }
        }
    });

    test('相对 import 写 .ts 文件自己的名字（./x.ts），不写 ./x.js：node 直接跑 .ts 时不会替你换', () => {
        // 照教程写法的学习者示例（test/check/solution-*/、test/check/learners/）保留 ./x.js：npm run check 用 tsx 跑学习者的文件夹，教程里的代码就是这样写的
        const learner = /^test\/check\/(solution-[^/]+|learners)\//;
        const code = trackedFiles().filter((f) => /^(day\d+|scripts|test)\//.test(f) && /\.(ts|mts|mjs)$/.test(f) && !/\.d\.m?ts$/.test(f) && !learner.test(f));
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
