// 一行代码算哪一天的，以及一个阶段的文件按什么顺序读。npm run stages 的按天统计和 npm run diff -- … --day N 共用这里的规则，
// 这个文件只有纯函数（不读文件、不跑 git），规则在这里写一次。
//
// 哪一天（规则也以 DAY_RULE 的原话打印出来，章节引用的就是它）：
//   - 新文件整份算文件头标的那一天：开头连续的注释行里第一个「Day N：」（整个文件都是加固、第一行就是分隔线的，标记在紧跟的注释行里）。
//   - 沿用的文件，按 git diff 的改动块（hunk）算：块里新增的行中第一个「Day N：」标记，只认这个阶段自己的天；
//     块里没有这样的标记，就算这个阶段的最后一天。所以后面某天往旧文件里加代码时，在加的那段里写一句「Day N：」注释。
//   - 「Day 2–3：」这样的范围算第一天（文件是那天引入的）。
// 阅读顺序（readingOrder）的规则写在 diff.ts 的文件头：读者从那里用它。

/** 每个阶段包含教程的哪几天。 */
export const STAGE_DAYS: Record<string, number[]> = {
    day01: [1],
    day04: [2, 3, 4],
    day08: [5, 6, 7, 8],
    day11: [9, 10, 11],
    day15: [12, 13, 14, 15],
};

/** 课的名字，按顺序。 */
export const LESSONS = Object.keys(STAGE_DAYS);

/**
 * 加固版：拿来用的 Agent，day15 的全部功能加上每一处防御。它不是课：不按天计数、不和课比行数（npm run stages 单独列它），
 * 在测试要用的表里排在 day15 之后。
 */
export const HARDENED = 'hardened';

/** 仓库里能运行的 Agent，按顺序：各课，最后是加固版（仓库里唯一的一份阶段表：检查、测试、统计都从这里取）。 */
export const STAGES = [...LESSONS, HARDENED];

export const DAY_RULE = '按天计数：新文件整份记到文件头「Day N：」标的那一天；沿用文件的改动按 git diff 的改动块记，'
    + '每块记到块里新增行中第一个「Day N：」标记的那一天，块里没有标记就记到这个阶段的最后一天；删掉的行不抵扣。';

/** 旧的分隔线「// —— 加固」：还没换成课的阶段和加固版里有，课里不许有（test/repo/rules.test.ts）。 */
export const DIVIDER = /^\s*\/\/\s*——\s*加固/;

/** 一行里的「Day N：」标记（范围「Day 2–3：」取第一天）。 */
export function tagDay(line: string): number | undefined {
    const m = /Day (\d+)(?:\s*[–-]\s*\d+)?：/.exec(line);
    return m ? Number(m[1]) : undefined;
}

/** 文件头标的是哪一天：开头连续的注释行里第一个标记；第一行是旧的分隔线时从下一行看起。 */
export function headerDay(lines: string[]): number | undefined {
    let i = lines.length && DIVIDER.test(lines[0]) ? 1 : 0;
    for (; i < lines.length && /^\s*\/\//.test(lines[i]); i++) {
        const day = tagDay(lines[i]);
        if (day !== undefined) return day;
    }
    return undefined;
}

/** git diff 里的一个改动块：added 是新增行在新文件里的行号（从 1 数），text 是块的原文（含 @@ 那一行）。 */
export interface Hunk {
    text: string[];
    added: { line: number; text: string }[];
    deleted: number;
}

/** 一个文件的 git diff：head 是 @@ 之前的几行（diff --git、---、+++），然后是各个改动块。 */
export interface FileDiff {
    head: string[];
    hunks: Hunk[];
}

export function parseDiff(text: string): FileDiff {
    const head: string[] = [];
    const hunks: Hunk[] = [];
    let line = 0;
    for (const row of text.replace(/\n$/, '').split('\n')) {
        const at = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(row);
        if (at) {
            line = Number(at[1]) || 1;   // 新文件是空的时候 git 写 +0,0
            hunks.push({ text: [row], added: [], deleted: 0 });
            continue;
        }
        const hunk = hunks.at(-1);
        if (!hunk) {
            head.push(row);
            continue;
        }
        hunk.text.push(row);
        if (row.startsWith('+')) hunk.added.push({ line: line++, text: row.slice(1) });
        else if (row.startsWith('-')) hunk.deleted++;
        else if (row.startsWith(' ')) line++;
        // 「\ No newline at end of file」不占行
    }
    return { head, hunks };
}

/** 一个改动块算哪一天：新增行里第一个属于 days 的标记，没有就是 days 的最后一天。 */
export function hunkDay(hunk: Hunk, days: number[]): number {
    for (const { text } of hunk.added) {
        const day = tagDay(text);
        if (day !== undefined && days.includes(day)) return day;
    }
    return days[days.length - 1];
}

/** 新文件算哪一天：文件头的标记属于 days 就用它，否则是 days 的最后一天。 */
export function newFileDay(lines: string[], days: number[]): number {
    const day = headerDay(lines);
    return day !== undefined && days.includes(day) ? day : days[days.length - 1];
}

/** 阅读顺序（规则见 diff.ts 的文件头）。graph：文件 → 它 import 的文件，按 import 语句的顺序。 */
export function readingOrder(graph: Map<string, string[]>, entry = 'index.ts'): string[] {
    const seen = graph.has(entry) ? [entry] : [];
    for (let i = 0; i < seen.length; i++) {
        for (const dep of graph.get(seen[i]) ?? []) if (!seen.includes(dep)) seen.push(dep);
    }
    // 最长导入链：没有循环导入（仓库规矩的测试检查），按拓扑顺序放松一遍就够
    const importers = new Map<string, number>(seen.map((f) => [f, 0]));
    for (const f of seen) for (const dep of graph.get(f) ?? []) importers.set(dep, importers.get(dep)! + 1);
    const depth = new Map<string, number>(seen.map((f) => [f, 0]));
    const ready = seen.filter((f) => importers.get(f) === 0);
    while (ready.length) {
        const f = ready.shift()!;
        for (const dep of graph.get(f) ?? []) {
            depth.set(dep, Math.max(depth.get(dep)!, depth.get(f)! + 1));
            importers.set(dep, importers.get(dep)! - 1);
            if (importers.get(dep) === 0) ready.push(dep);
        }
    }
    const reached = [...seen].sort((a, b) => depth.get(a)! - depth.get(b)! || seen.indexOf(a) - seen.indexOf(b));
    const rest = [...graph.keys()].filter((f) => !seen.includes(f)).sort();
    return [...reached, ...rest];
}

// —— 原教程的行数 ——
// 原教程每个阶段末尾的源码约有 157 / 570 / 1285 / 1752 / 2506 行；写明某一天行数的只有第 15 天那一篇：
// 相对第 14 天新增 314 行、删除 3 行（净增 311 行，含 52 行的演示服务器）。第 1 天就是整个 day01。
// 其余各天没有公开的数字：一个阶段的净增长按天平均分，标成「约」。
const ORIGINAL_STAGE_LINES: Record<string, number> = { day01: 157, day04: 570, day08: 1285, day11: 1752, day15: 2506 };
const ORIGINAL_DAY_LINES: Record<number, { added: number; net: number }> = { 1: { added: 157, net: 157 }, 15: { added: 314, net: 311 } };

export const ORIGINAL_NOTE = '原教程的行数：第 1 天 157 行、第 15 天新增 314 行是原文给出的数字；其余各天只知道阶段合计'
    + `（约 ${Object.values(ORIGINAL_STAGE_LINES).join(' / ')} 行），多天的阶段按天平均，标「约」。`;

/** 原教程这一天写了多少行；estimate 为真时是按天平均的估计。 */
export function originalDay(day: number): { lines: number; estimate: boolean } {
    const known = ORIGINAL_DAY_LINES[day];
    if (known) return { lines: known.added, estimate: false };
    const index = LESSONS.findIndex((s) => STAGE_DAYS[s].includes(day));
    const days = STAGE_DAYS[LESSONS[index]];
    let growth = ORIGINAL_STAGE_LINES[LESSONS[index]] - (index > 0 ? ORIGINAL_STAGE_LINES[LESSONS[index - 1]] : 0);
    const unknown = days.filter((d) => {
        if (!ORIGINAL_DAY_LINES[d]) return true;
        growth -= ORIGINAL_DAY_LINES[d].net;
        return false;
    });
    return { lines: Math.round(growth / unknown.length), estimate: true };
}

export const originalText = (day: number) => {
    const { lines, estimate } = originalDay(day);
    return `${estimate ? '约 ' : ''}${lines} 行`;
};
