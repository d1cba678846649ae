// 基准：① search 与 grep -rIn 在同一棵 10 000 个文件（约 50 MB）的树上比速度（各取 3 次最好成绩）；
// ② 1000 条记忆建索引后，50 次自动回忆的平均耗时。目标：search ≤ 2× grep，回忆 < 50 ms/次。
// 单独运行：npx tsx test/bench/search.bench.ts
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIndex, chunkText, rank, recallTerms } from '../../hardened/bm25.ts';
import { searchFiles } from '../../hardened/search.ts';

const FILES = 10_000;
const TARGET_BYTES = 50 * 1024 * 1024;
const RARE = 'qzvRareNeedle';        // 只埋进少数几个文件，保证整棵树都要扫完

/** 固定种子的伪随机数，每次生成的树都一样，结果可比。 */
function rng(seed: number): () => number {
    let s = seed >>> 0;
    return () => {
        s = (s * 1664525 + 1013904223) >>> 0;
        return s / 2 ** 32;
    };
}

const WORDS = ('const let function return import export from async await value result index buffer ' +
    'string number object array promise error message config history request response stream ' +
    'token chunk memory search fetch render update handler option params query limit offset').split(' ');
const HAN = '模型工具记忆检索搜索文件目录配置请求响应历史对话上下文压缩权限终端界面用户问题答案代码测试';

function makeLine(rand: () => number): string {
    const r = rand();
    const pick = (list: string | string[]) => list[Math.floor(rand() * list.length)];
    if (r < 0.15) {
        let s = '// ';
        for (let i = 0; i < 8 + rand() * 20; i++) s += pick(HAN);
        return s;
    }
    const indent = ' '.repeat(4 * Math.floor(rand() * 3));
    const words: string[] = [];
    for (let i = 0; i < 4 + rand() * 10; i++) words.push(pick(WORDS));
    return `${indent}${words.join(r < 0.6 ? ' ' : '.')};`;
}

function makeTree(dir: string): number {
    const rand = rng(42);
    const pool = Array.from({ length: 4000 }, () => makeLine(rand));
    const perFile = TARGET_BYTES / FILES;
    let total = 0;
    for (let i = 0; i < FILES; i++) {
        // 20 个顶层目录，各 10 个子目录；每第 7 个文件再深一层
        const sub = path.join(dir, `pkg${i % 20}`, `mod${Math.floor(i / 20) % 10}`, i % 7 === 0 ? 'deep' : '');
        fs.mkdirSync(sub, { recursive: true });
        const lines: string[] = [];
        let size = 0;
        const want = perFile * (0.5 + rand());
        while (size < want) {
            const line = pool[Math.floor(rand() * pool.length)];
            lines.push(line);
            size += Buffer.byteLength(line) + 1;
        }
        if (i % 3331 === 17) lines.splice(lines.length >> 1, 0, `    const hit = '${RARE}';`);
        const text = lines.join('\n') + '\n';
        fs.writeFileSync(path.join(sub, `file${i}.ts`), text);
        total += Buffer.byteLength(text);
    }
    return total;
}

function bestOf(times: number, fn: () => void): number {
    let best = Infinity;
    for (let i = 0; i < times; i++) {
        const t0 = performance.now();
        fn();
        best = Math.min(best, performance.now() - t0);
    }
    return best;
}

async function benchSearch(): Promise<void> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-search-bench-'));
    try {
        const bytes = makeTree(dir);
        console.log(`搜索基准：${FILES} 个文件，${(bytes / 1024 / 1024).toFixed(1)} MB`);
        let ours = '';
        const oursMs = bestOf(3, () => {
            ours = searchFiles(dir, '', RARE);
        });
        let grepOut = '';
        const grepMs = bestOf(3, () => {
            grepOut = execFileSync('grep', ['-rIn', RARE, dir], { encoding: 'utf8', maxBuffer: 1 << 26 });
        });
        const grepHits = grepOut.trim().split('\n').length;
        const ourHits = ours.split('\n').length - 1;
        console.log(`  searchFiles：${oursMs.toFixed(0)} ms（${ourHits} 行命中）`);
        console.log(`  grep -rIn ：${grepMs.toFixed(0)} ms（${grepHits} 行命中）`);
        console.log(`  比值：${(oursMs / grepMs).toFixed(2)}×（目标 ≤ 2×）`);
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

function makeMemory(rand: () => number): string {
    const pick = (list: string | string[]) => list[Math.floor(rand() * list.length)];
    const want = 200 + rand() * 200;
    let s = '';
    while (s.length < want) {
        if (rand() < 0.5) {
            let han = '';
            for (let i = 0; i < 6 + rand() * 14; i++) han += pick(HAN);
            s += han + '。';
        } else {
            const words: string[] = [];
            for (let i = 0; i < 4 + rand() * 8; i++) words.push(pick(WORDS));
            s += words.join(' ') + '. ';
        }
    }
    return s;
}

function benchRecall(): void {
    const rand = rng(7);
    const memories = Array.from({ length: 1000 }, () => makeMemory(rand));
    const t0 = performance.now();
    const texts = memories.flatMap((m) => chunkText(m).map((c) => c.text));
    const index = buildIndex(texts);
    const buildMs = performance.now() - t0;
    const queries = Array.from({ length: 50 }, () => makeMemory(rand).slice(0, 40 + Math.floor(rand() * 80)));
    let found = 0;
    const t1 = performance.now();
    for (const q of queries) found += rank(index, recallTerms(q), 5).length;
    const perQuery = (performance.now() - t1) / queries.length;
    console.log(`回忆基准：1000 条记忆 → ${texts.length} 块，切块 + 建索引 ${buildMs.toFixed(1)} ms`);
    console.log(`  50 次回忆：平均 ${perQuery.toFixed(2)} ms/次（目标 < 50 ms），共 ${found} 条命中`);
}

export async function run(): Promise<void> {
    await benchSearch();
    benchRecall();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
