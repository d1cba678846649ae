// 课的规矩：每课多少行、每课要守的几条。npm run stages 显示它们，test/repo/rules.test.ts 强制。
// 一课的行数是阶段里除 README.md 以外每个文件的行数之和（.mjs、skills/ 下的 SKILL.md 都算）。
// 这个文件只有规则和纯函数（读文件，不跑 git）；按天的行数由 stages.ts 算好传进来。
import fs from 'node:fs';
import path from 'node:path';

/**
 * 每课的行数上限：大约是原教程那几天的两倍。课只教章节里讲的东西；真实使用要的防御在加固版 hardened/ 里，
 * 不算在课里。以后往课里加东西（比如一处安全修正）要在这里把上限提高同样的行数，并在提交里说明。
 */
export const LESSON_CAPS: Record<string, number> = { day01: 320, day04: 950, day08: 2250, day11: 2700, day15: 3550 };

export const LINE_MAX = 140;            // 一行最多这么多个字符
export const CLASS_MAX = 120;           // 一个 class 最多这么多行
export const DEMO_SERVER_MAX = 80;      // day15 的 demo-server.mjs
export const MCP_MAX = { lines: 250, files: 3 };   // Day 15 的 MCP 代码（客户端、JSON-RPC、配置、mcp.json 的信任、注册）

/** 一天最多加多少行：第 7 天（全屏界面）800，别的天 500。 */
export const dayCap = (day: number) => (day === 7 ? 800 : 500);

/** 算作 Day 15 MCP 代码的文件：mcp.ts、mcp-*.ts、jsonrpc.ts、schema.ts。 */
export const isMcpFile = (file: string) => /^(mcp(-[a-z-]+)?|jsonrpc|schema)\.ts$/.test(file);

/** 像旧分隔线的行（注释里一串破折号后面跟「加固」）：写歪了的也算。 */
const DIVIDER_LIKE = /^\s*\/\/\s*[-—–]+\s*加固/;

/**
 * 一课（已换成课的阶段）违反了哪几条，每条一行；files 是阶段里除 README.md 以外的文件，days 是每天加的行数。
 * 总行数的上限（LESSON_CAPS）每课都管，不在这里：见 stages.ts 的总表和 rules.test.ts。
 */
export function lessonProblems(root: string, stage: string, files: string[], days: { day: number; lines: number }[]): string[] {
    const out: string[] = [];
    const where = (file: string, n: number) => `${stage}/${file}:${n + 1}`;
    for (const file of files) {
        const text = fs.readFileSync(path.join(root, stage, file), 'utf8');
        const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
        lines.forEach((line, n) => {
            if ([...line].length > LINE_MAX) out.push(`${where(file, n)}：一行 ${[...line].length} 个字符，最多 ${LINE_MAX}`);
            if (DIVIDER_LIKE.test(line)) out.push(`${where(file, n)}：课里没有「// —— 加固」分隔线`);
        });
        if (!/\.(ts|mjs)$/.test(file)) continue;
        for (const spec of importsIn(text)) {
            const inside = spec.startsWith('.') && !path.relative(path.join(root, stage), path.resolve(path.join(root, stage, path.dirname(file)), spec)).startsWith('..');
            if (!spec.startsWith('node:') && !inside) out.push(`${stage}/${file}：import '${spec}'——课只 import node: 模块和自己的文件`);
        }
        for (const c of classes(lines)) if (c.lines > CLASS_MAX) out.push(`${where(file, c.at)}：class ${c.name} ${c.lines} 行，最多 ${CLASS_MAX}`);
    }
    for (const d of days) if (d.lines > dayCap(d.day)) out.push(`${stage}：第 ${d.day} 天加了 ${d.lines} 行，最多 ${dayCap(d.day)}`);
    const mcp = files.filter(isMcpFile);
    if (mcp.length) {
        const lines = mcp.reduce((n, f) => n + countOf(path.join(root, stage, f)), 0);
        if (lines > MCP_MAX.lines || mcp.length > MCP_MAX.files) {
            out.push(`${stage}：MCP 代码 ${mcp.length} 个文件 ${lines} 行（${mcp.join('、')}），最多 ${MCP_MAX.files} 个文件 ${MCP_MAX.lines} 行`);
        }
    }
    if (files.includes('demo-server.mjs') && countOf(path.join(root, stage, 'demo-server.mjs')) > DEMO_SERVER_MAX) {
        out.push(`${stage}/demo-server.mjs：${countOf(path.join(root, stage, 'demo-server.mjs'))} 行，最多 ${DEMO_SERVER_MAX}`);
    }
    return out;
}

function countOf(file: string): number {
    const text = fs.readFileSync(file, 'utf8');
    return text === '' ? 0 : text.replace(/\n$/, '').split('\n').length;
}

/** 源码里 import / export … from / import() / require() 的说明符。 */
function importsIn(text: string): string[] {
    const found = text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)|\brequire\(\s*'([^']+)'\s*\)/gm);
    return [...found].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4]);
}

/** 文件里的每个 class：从 class 那一行到同样缩进的「}」。 */
function classes(lines: string[]): { name: string; at: number; lines: number }[] {
    const out: { name: string; at: number; lines: number }[] = [];
    lines.forEach((line, at) => {
        const m = /^(\s*)(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+(\w+)/.exec(line);
        if (!m) return;
        const end = lines.findIndex((l, n) => n > at && l.startsWith(`${m[1]}}`));
        out.push({ name: m[2], at, lines: (end === -1 ? lines.length - 1 : end) - at + 1 });
    });
    return out;
}
