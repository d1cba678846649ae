// 各课的统计：文件与行数（除 README.md 以外的每个文件）和它的上限；和前一课比，新增、修改了哪些文件，改动里有多少是纯新增；
// 每一天写了多少行（按天计数的规则在 days.ts，打印时附上一句原话）。加固版（hardened/）不是课，单独一行：它相对 day15 多了什么。
//   npm run stages                 总表、按天的表、已换成课的阶段违反的规矩 + 每课改了哪些沿用的文件
//   npm run stages -- --readme     把每课的「文件与行数」表和按天的行数写进它的 README（两个标记之间）
// README 里的表只由这个命令生成，test/repo/rules.test.ts 检查它们没有过期，也检查每课的上限和课的规矩（规矩在 lessons.ts）。
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
    DAY_RULE, DIVIDER, type FileDiff, HARDENED, hunkDay, LESSONS, newFileDay, ORIGINAL_NOTE, originalDay, originalText, parseDiff,
    STAGE_DAYS, STAGES,
} from './days.ts';
import { dayCap, LESSON_CAPS, lessonProblems } from './lessons.ts';

export { HARDENED, LESSONS, STAGE_DAYS, STAGES } from './days.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BEGIN = '<!-- 文件与行数：由 npm run stages -- --readme 生成，不要手改 -->';
export const END = '<!-- 生成结束 -->';
export const CODE = /\.(ts|mjs)$/;
/** 算行数的文件：阶段里除 README.md 以外的每个文件（.mjs、skills/ 下的 SKILL.md 也算）。 */
export const COUNTED = (file: string) => file !== 'README.md';

/** 一个阶段里的文件（相对路径，含技能子目录），按名字排序。 */
export function stageFiles(stage: string, keep: (file: string) => boolean): string[] {
    const out: string[] = [];
    const walk = (dir: string) => {
        for (const e of fs.readdirSync(path.join(ROOT, stage, dir), { withFileTypes: true })) {
            if (e.name.startsWith('.')) continue;   // 点文件夹不是阶段的源码（npm run check 的 .check/ 运行记录之类）
            const rel = dir ? `${dir}/${e.name}` : e.name;
            if (e.isDirectory()) walk(rel);
            else if (keep(rel)) out.push(rel);
        }
    };
    walk('');
    return out.sort();
}

export const sourceFiles = (stage: string) => stageFiles(stage, (f) => CODE.test(f));

/** 文件的行：最后的换行不算一行，空文件没有行。 */
export function fileLines(file: string): string[] {
    const text = fs.readFileSync(file, 'utf8');
    return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

export const countLines = (file: string) => fileLines(file).length;

/** 一个文件 import 了阶段里的哪些文件，按 import 语句的顺序（import type 和 export … from 也算）。 */
export function importsOf(stage: string, file: string, files: string[]): string[] {
    const text = fs.readFileSync(path.join(ROOT, stage, file), 'utf8');
    return [...text.matchAll(/^(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/gm)]
        .map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1])).replace(/\.js$/, '.ts'))
        .filter((d) => files.includes(d));
}

/** git diff 一个文件（--no-index 在有差异时退出码为 1）；路径相对仓库根目录，新文件、删掉的文件对着 /dev/null 比。 */
function gitDiff(a: string, b: string): FileDiff {
    let out: string;
    try {
        out = execFileSync('git', ['diff', '--no-index', '--no-color', '--no-ext-diff', '--src-prefix=a/', '--dst-prefix=b/', a, b],
            { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    } catch (e) {
        out = (e as { stdout?: string }).stdout ?? '';
    }
    return parseDiff(out);
}

/** 新文件的 diff 自己写出来（和 git 的写法一样），省掉几十次 git 进程。 */
function wholeFile(rel: string, lines: string[]): FileDiff {
    const text = fs.readFileSync(path.join(ROOT, rel), 'utf8');
    const mode = fs.statSync(path.join(ROOT, rel)).mode & 0o111 ? '100755' : '100644';
    const head = [`diff --git a/${rel} b/${rel}`, `new file mode ${mode}`, '--- /dev/null', `+++ b/${rel}`];
    if (!lines.length) return { head, hunks: [] };
    const hunk = [`@@ -0,0 +1${lines.length === 1 ? '' : `,${lines.length}`} @@`, ...lines.map((l) => `+${l}`)];
    if (!text.endsWith('\n')) hunk.push('\\ No newline at end of file');
    return parseDiff([...head, ...hunk].join('\n'));
}

/** 从一个阶段到下一个阶段的一块改动：一个新文件、一个删掉的文件，或沿用文件里记到同一天的那些改动块。 */
export interface Piece {
    day: number;
    file: string;
    status: 'first' | 'new' | 'edited' | 'removed';
    diff: FileDiff;
    added: number;
    del: number;
}

/**
 * from → to 的全部改动，每块记到一天（规则在 days.ts）。from 为空时 to 是第一个阶段，每个文件整份是新的。
 * 加固版不按天：day15 → hardened 的改动都记到第 15 天。
 */
export function pieces(from: string | undefined, to: string, keep: (file: string) => boolean): Piece[] {
    const days = STAGES.slice(from ? STAGES.indexOf(from) + 1 : 0, STAGES.indexOf(to) + 1).flatMap((s) => STAGE_DAYS[s] ?? [15]);
    const before = new Set(from ? stageFiles(from, keep) : []);
    const out: Piece[] = [];
    for (const file of stageFiles(to, keep)) {
        const here = path.join(ROOT, to, file);
        if (before.has(file) && fs.readFileSync(here).equals(fs.readFileSync(path.join(ROOT, from!, file)))) continue;
        const lines = fileLines(here);
        const count = (day: number, status: Piece['status'], diff: FileDiff) => {
            const added = diff.hunks.reduce((n, h) => n + h.added.length, 0);
            out.push({ day, file, status, diff, added, del: diff.hunks.reduce((n, h) => n + h.deleted, 0) });
        };
        if (!before.has(file)) {
            count(newFileDay(lines, days), from ? 'new' : 'first', wholeFile(`${to}/${file}`, lines));
            continue;
        }
        const diff = gitDiff(`${from}/${file}`, `${to}/${file}`);
        for (const day of days) {
            const hunks = diff.hunks.filter((h) => hunkDay(h, days) === day);
            if (hunks.length) count(day, 'edited', { head: diff.head, hunks });
        }
    }
    for (const file of before) {
        if (fs.existsSync(path.join(ROOT, to, file))) continue;
        const diff = gitDiff(`${from}/${file}`, '/dev/null');
        out.push({ day: days[days.length - 1], file, status: 'removed', diff, added: 0, del: countLines(path.join(ROOT, from!, file)) });
    }
    return out;
}

export interface FileRow {
    file: string;
    lines: number;
    day: number;         // 引入这个文件的那一天
    status: 'new' | 'edited' | 'same' | 'first';
    add: number;
    del: number;
    days: number[];      // 这个阶段里改它的是哪几天
}

export interface DayRow {
    day: number;
    lines: number;       // 这一天加的行
}

export interface StageStats {
    stage: string;
    previous?: string;
    files: FileRow[];
    lines: number;
    add: number;
    del: number;
    removed: string[];
    days: DayRow[];
}

/** 引入这个文件的那一天：它第一次出现的阶段里，按新文件的规则算。 */
function introducedDay(stage: string, file: string): number {
    const first = LESSONS.slice(0, LESSONS.indexOf(stage) + 1).find((s) => fs.existsSync(path.join(ROOT, s, file)))!;
    return newFileDay(fileLines(path.join(ROOT, first, file)), STAGE_DAYS[first]);
}

export function stageStats(stage: string): StageStats {
    const index = LESSONS.indexOf(stage);
    const previous = index > 0 ? LESSONS[index - 1] : undefined;
    const changes = pieces(previous, stage, COUNTED);
    const files: FileRow[] = stageFiles(stage, COUNTED).map((file) => {
        const here = path.join(ROOT, stage, file);
        const mine = changes.filter((p) => p.file === file);
        const add = mine.reduce((n, p) => n + p.added, 0);
        return {
            file, lines: countLines(here), day: introducedDay(stage, file),
            status: mine.length ? mine[0].status as FileRow['status'] : 'same',
            add, del: mine.reduce((n, p) => n + p.del, 0), days: mine.map((p) => p.day),
        };
    });
    const sum = <T>(rows: T[], f: (r: T) => number) => rows.reduce((n, r) => n + f(r), 0);
    return {
        stage, previous, files,
        removed: changes.filter((p) => p.status === 'removed').map((p) => p.file),
        lines: sum(files, (r) => r.lines),
        add: sum(files, (r) => r.add),
        del: sum(changes, (p) => p.del),
        days: STAGE_DAYS[stage].map((day) => ({ day, lines: sum(changes.filter((p) => p.day === day), (p) => p.added) })),
    };
}

/** 加固版相对 day15：文件数、行数，多了、改了、少了哪些文件，新增和删除的行。 */
export function hardenedStats(): { files: number; lines: number; add: number; del: number; added: string[]; edited: string[]; removed: string[] } {
    const changes = pieces(LESSONS.at(-1), HARDENED, COUNTED);
    const files = stageFiles(HARDENED, COUNTED);
    const of = (status: Piece['status']) => changes.filter((p) => p.status === status).map((p) => p.file);
    return {
        files: files.length, lines: files.reduce((n, f) => n + countLines(path.join(ROOT, HARDENED, f)), 0),
        add: changes.reduce((n, p) => n + p.added, 0), del: changes.reduce((n, p) => n + p.del, 0),
        added: of('new'), edited: of('edited'), removed: of('removed'),
    };
}

const share = (s: StageStats) => (s.add + s.del ? `${Math.round((100 * s.add) / (s.add + s.del))}%` : '-');
const overText = (n: number, limit: number) => (n > limit ? `${limit}（超出 ${n - limit}）` : String(limit));

export function summaryTable(all: StageStats[]): string {
    const rows = all.map((s) => {
        const count = (status: FileRow['status']) => s.files.filter((r) => r.status === status).length;
        const vs = s.previous ? `${s.previous} | +${s.add} | -${s.del} | ${share(s)} | ${count('new')} | ${count('edited')}` : '| | | | |';
        return `| ${s.stage} | ${s.files.length} | ${s.lines} | ${overText(s.lines, LESSON_CAPS[s.stage])} | ${vs} |`;
    });
    return [
        '| 阶段 | 文件 | 行数 | 上限 | 对比 | 新增行 | 删除行 | 新增占比 | 新文件 | 改动的旧文件 |',
        '|---|---:|---:|---|---|---:|---:|---|---:|---:|',
        ...rows,
    ].join('\n');
}

export function dayTable(all: StageStats[]): string {
    const rows = all.flatMap((s) => s.days.map((d) => `| 第 ${d.day} 天 | ${s.stage} | ${d.lines} | ${overText(d.lines, dayCap(d.day))} | ${originalText(d.day)} |`));
    return ['| 天 | 阶段 | 行数 | 课的上限 | 原教程 |', '|---|---|---:|---|---:|', ...rows].join('\n');
}

/** README 里按天的一句：第 N 天：X 行（原教程这一天 Z 行）。 */
export function dayLine(d: DayRow): string {
    const { lines, estimate } = originalDay(d.day);
    return `第 ${d.day} 天：${d.lines} 行（原教程这一天${estimate ? '约' : ''} ${lines} 行）`;
}

/** 文件的作用：文件头第一行注释里第一个句号之前的部分（去掉「Day N：」；跳过旧的分隔线），SKILL.md 取 description：表里的说明和文件一致。 */
function purpose(stage: string, file: string): string {
    const lines = fileLines(path.join(ROOT, stage, file));
    const first = file.endsWith('.md')
        ? lines.find((l) => l.startsWith('description:'))?.replace(/^description:\s*/, '// ') ?? ''
        : lines[lines.length && DIVIDER.test(lines[0]) ? 1 : 0] ?? '';
    if (!first.startsWith('//')) return '';
    return first.replace(/^\/\/\s*/, '').replace(/^Day [0-9–-]+：/, '').split('。')[0].replace(/\|/g, '\\|');
}

/** 一课 README 里生成的部分：每个文件的行数、作用，相对前一课是新文件、改过还是原样；然后是按天的行数。 */
export function readmeTable(s: StageStats): string {
    const label: Record<FileRow['status'], (r: FileRow) => string> = {
        first: () => '',
        new: () => '新文件',
        edited: (r) => `改动 +${r.add} -${r.del}（第 ${r.days.join('、')} 天）`,
        same: () => '原样',
    };
    const vs = s.previous ? ` 对比 ${s.previous} |` : '';
    const head = `| 文件 | 第几天 | 行数 |${vs} 作用 |\n|---|---:|---:|${s.previous ? '---|' : ''}---|`;
    const rows = s.files.map((r) => {
        const change = s.previous ? ` ${label[r.status](r)} |` : '';
        return `| \`${r.file}\` | ${r.day} | ${r.lines} |${change} ${purpose(s.stage, r.file)} |`;
    });
    const change = s.previous ? ` +${s.add} -${s.del}（新增占比 ${share(s)}） |` : '';
    const total = `| 合计 ${s.files.length} 个文件 | | ${s.lines} |${change} |`;
    const days = s.days.map((d) => `- ${dayLine(d)}`);
    return [head, ...rows, total, '', ...days, '', DAY_RULE, '', ORIGINAL_NOTE].join('\n');
}

/** 把表放进 README 的两个标记之间；没有标记时返回 undefined。 */
export function withTable(readme: string, table: string): string | undefined {
    const start = readme.indexOf(BEGIN);
    const end = readme.indexOf(END);
    if (start < 0 || end < start) return undefined;
    return readme.slice(0, start + BEGIN.length) + '\n' + table + '\n' + readme.slice(end);
}

/** README 两个标记之间现在写着的内容（去掉首尾空白）；没有标记时返回 undefined。 */
export function tableIn(readme: string): string | undefined {
    const start = readme.indexOf(BEGIN);
    const end = readme.indexOf(END);
    return start < 0 || end < start ? undefined : readme.slice(start + BEGIN.length, end).trim();
}

function main(): void {
    const all = LESSONS.map(stageStats);
    if (process.argv.includes('--readme')) {
        for (const s of all) {
            const file = path.join(ROOT, s.stage, 'README.md');
            const next = withTable(fs.readFileSync(file, 'utf8'), readmeTable(s));
            if (next === undefined) console.log(`${s.stage}/README.md 里没有标记，跳过`);
            else fs.writeFileSync(file, next);
        }
        return;
    }
    console.log(summaryTable(all));
    console.log('\n行数是阶段里除 README.md 以外每个文件的行数之和；上限见 scripts/lessons.ts 的 LESSON_CAPS。');
    for (const s of all) {
        const problems = lessonProblems(ROOT, s.stage, s.files.map((r) => r.file), s.days);
        console.log(problems.length ? `${s.stage} 违反课的规矩：\n  ${problems.join('\n  ')}` : `${s.stage} 守着课的每一条规矩。`);
    }
    const h = hardenedStats();
    const list = (what: string, files: string[]) => (files.length ? `；${what} ${files.join('、')}` : '');
    console.log(`\n加固版 ${HARDENED}/（不是课，不计上限）：${h.files} 个文件，${h.lines} 行；相对 ${LESSONS.at(-1)} +${h.add} -${h.del}`
        + `${list('多的文件', h.added)}${list('改过的文件', h.edited)}${list('没有的文件', h.removed)}`);
    console.log(`\n${dayTable(all)}\n\n${DAY_RULE}\n${ORIGINAL_NOTE}`);
    for (const s of all.filter((x) => x.previous)) {
        const edited = s.files.filter((r) => r.status === 'edited').map((r) => `${r.file} (+${r.add} -${r.del}，第 ${r.days.join('、')} 天)`);
        if (edited.length) console.log(`\n${s.stage} 改动的旧文件：${edited.join('，')}`);
        if (s.removed.length) console.log(`${s.stage} 没有带上的旧文件：${s.removed.join('，')}`);
    }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
