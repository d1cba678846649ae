// 各阶段的统计：源文件与行数；和前一阶段比，新增、修改了哪些文件，改动里有多少是纯新增。
//   npm run stages                 总表 + 每个阶段改了哪些沿用的文件
//   npm run stages -- --readme     把每个阶段的「文件与行数」表写进它的 README（两个标记之间）
// README 里的表只由这个命令生成，test/repo/stages.test.ts 检查它们没有过期。
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const STAGES = ['day01', 'day04', 'day08', 'day11', 'day15'];
export const BEGIN = '<!-- 文件与行数：由 npm run stages -- --readme 生成，不要手改 -->';
export const END = '<!-- 生成结束 -->';
const CODE = /\.(ts|mjs)$/;

/** 一个阶段里的文件（相对路径，含技能子目录），按名字排序。 */
export function stageFiles(stage: string, keep: (file: string) => boolean): string[] {
    const out: string[] = [];
    const walk = (dir: string) => {
        for (const e of fs.readdirSync(path.join(ROOT, stage, dir), { withFileTypes: true })) {
            const rel = dir ? `${dir}/${e.name}` : e.name;
            if (e.isDirectory()) walk(rel);
            else if (keep(rel)) out.push(rel);
        }
    };
    walk('');
    return out.sort();
}

export const sourceFiles = (stage: string) => stageFiles(stage, (f) => CODE.test(f));

export function countLines(file: string): number {
    const text = fs.readFileSync(file, 'utf8');
    return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** 两个文件之间增删的行数（git diff --no-index 在有差异时退出码为 1）。 */
function numstat(a: string, b: string): { add: number; del: number } {
    let out: string;
    try {
        out = execFileSync('git', ['diff', '--no-index', '--numstat', a, b], { encoding: 'utf8' });
    } catch (e) {
        out = (e as { stdout?: string }).stdout ?? '';
    }
    const [add, del] = out.split('\t');
    return { add: Number(add) || 0, del: Number(del) || 0 };
}

export interface FileRow {
    file: string;
    lines: number;
    status: 'new' | 'edited' | 'same' | 'first';
    add: number;
    del: number;
}

export interface StageStats {
    stage: string;
    previous?: string;
    files: FileRow[];
    lines: number;
    add: number;
    del: number;
    removed: string[];
}

export function stageStats(stage: string): StageStats {
    const index = STAGES.indexOf(stage);
    const previous = index > 0 ? STAGES[index - 1] : undefined;
    const before = new Set(previous ? sourceFiles(previous) : []);
    const files: FileRow[] = sourceFiles(stage).map((file) => {
        const here = path.join(ROOT, stage, file);
        const lines = countLines(here);
        if (!previous) return { file, lines, status: 'first', add: lines, del: 0 };
        if (!before.has(file)) return { file, lines, status: 'new', add: lines, del: 0 };
        const there = path.join(ROOT, previous, file);
        if (fs.readFileSync(here).equals(fs.readFileSync(there))) return { file, lines, status: 'same', add: 0, del: 0 };
        return { file, lines, status: 'edited', ...numstat(there, here) };
    });
    const removed = [...before].filter((f) => !files.some((r) => r.file === f));
    const del = files.reduce((n, r) => n + r.del, 0)
        + removed.reduce((n, f) => n + countLines(path.join(ROOT, previous!, f)), 0);
    return {
        stage, previous, files, removed, del,
        lines: files.reduce((n, r) => n + r.lines, 0),
        add: files.reduce((n, r) => n + r.add, 0),
    };
}

const share = (s: StageStats) => (s.add + s.del ? `${Math.round((100 * s.add) / (s.add + s.del))}%` : '-');

export function summaryTable(all: StageStats[]): string {
    const rows = all.map((s) => {
        const count = (status: FileRow['status']) => s.files.filter((r) => r.status === status).length;
        const vs = s.previous ? `${s.previous} | +${s.add} | -${s.del} | ${share(s)} | ${count('new')} | ${count('edited')}` : '| | | | |';
        return `| ${s.stage} | ${s.files.length} | ${s.lines} | ${vs} |`;
    });
    return ['| 阶段 | 文件 | 行数 | 对比 | 新增行 | 删除行 | 新增占比 | 新文件 | 改动的旧文件 |', '|---|---|---|---|---|---|---|---|---|', ...rows].join('\n');
}

/** 文件的作用：取文件头第一行注释里第一个句号之前的部分（去掉「Day N：」标记），所以表里的说明和代码不会不一致。 */
function purpose(stage: string, file: string): string {
    const first = fs.readFileSync(path.join(ROOT, stage, file), 'utf8').split('\n')[0];
    if (!first.startsWith('//')) return '';
    return first.replace(/^\/\/\s*/, '').replace(/^Day [0-9–-]+：/, '').split('。')[0].replace(/\|/g, '\\|');
}

/** 一个阶段 README 里的表：每个文件的行数、作用，以及它相对前一阶段是新文件、改过还是原样。 */
export function readmeTable(s: StageStats): string {
    const label: Record<FileRow['status'], (r: FileRow) => string> = {
        first: () => '',
        new: () => '新文件',
        edited: (r) => `改动 +${r.add} -${r.del}`,
        same: () => '原样',
    };
    const head = s.previous ? `| 文件 | 行数 | 对比 ${s.previous} | 作用 |\n|---|---:|---|---|` : '| 文件 | 行数 | 作用 |\n|---|---:|---|';
    const rows = s.files.map((r) => {
        const what = purpose(s.stage, r.file);
        return s.previous ? `| \`${r.file}\` | ${r.lines} | ${label[r.status](r)} | ${what} |` : `| \`${r.file}\` | ${r.lines} | ${what} |`;
    });
    const total = s.previous
        ? `| 合计 ${s.files.length} 个文件 | ${s.lines} | +${s.add} -${s.del}（新增占比 ${share(s)}） | |`
        : `| 合计 ${s.files.length} 个文件 | ${s.lines} | |`;
    return [head, ...rows, total].join('\n');
}

/** 把表放进 README 的两个标记之间；没有标记时返回 undefined。 */
export function withTable(readme: string, table: string): string | undefined {
    const start = readme.indexOf(BEGIN);
    const end = readme.indexOf(END);
    if (start < 0 || end < start) return undefined;
    return readme.slice(0, start + BEGIN.length) + '\n' + table + '\n' + readme.slice(end);
}

function main(): void {
    const all = STAGES.map(stageStats);
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
    for (const s of all.filter((x) => x.previous)) {
        const edited = s.files.filter((r) => r.status === 'edited').map((r) => `${r.file} (+${r.add} -${r.del})`);
        if (edited.length) console.log(`\n${s.stage} 改动的旧文件：${edited.join('，')}`);
        if (s.removed.length) console.log(`${s.stage} 没有带上的旧文件：${s.removed.join('，')}`);
    }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
