// Day 14：轻量 RAG。一篇文档收录一次：切成 600 字符的块存进 .geekagent/rag/index.json；模型回答之前用 rag_search
// 按 BM25 取回最相关的几块（第 13 天的 bm25.ts），照着原文回答。没有向量、没有重排：关键词加二元词已经答得了「文档里怎么说」。
import fs from 'node:fs';
import { chunkText, rank } from './bm25.ts';
import { htmlToText } from './html.ts';
import { safePath } from './permissions.ts';
import { redact } from './redact.ts';
import { loadJson, writeJsonAtomic } from './storage.ts';
import { confirm, registerTool, stringArg } from './tools.ts';
import { checkUrl, fetchText } from './web.ts';

export const RAG_FILE = '.geekagent/rag/index.json';
// 三块加上标题行不到 2000 个字符，正好放进一个工具结果（第 2 天的 MAX_OUTPUT_CHARS），不会被截掉最后一块
const CHUNK = 600;
const OVERLAP = 100;
const TOP = 3;
const MAX_SOURCE_BYTES = 4 << 20;

interface Doc {
    source: string;      // 收录时给的网址或路径，也是这篇文档的名字：再收录一次同一个来源，就换成新内容
    chunks: string[];
}

let docs: Doc[] = [];
let unreadable = '';   // 知识库文件读不了的原因。有它时一个字也不写：读不出来不等于没有，覆盖了就真没了

/** 启动时读；文件不存在就是空的知识库。读不了、格式不对时返回要告诉你的一句话（Agent 照常运行，只是知识库不可用）。 */
export function loadRag(): string {
    const loaded = loadJson(RAG_FILE);
    if (loaded.state === 'missing') return '';
    const list = loaded.state === 'ok' ? (loaded.data as { docs?: Doc[] } | null)?.docs : undefined;
    const fine = Array.isArray(list) && list.every((d) => typeof d?.source === 'string' && Array.isArray(d.chunks)
        && d.chunks.every((c) => typeof c === 'string'));
    if (fine) docs = list;
    else unreadable = `知识库 ${RAG_FILE} 读不了（${loaded.state === 'error' ? loaded.message : '格式不对'}），这次不用它，也不改动它；修好或移走它再收录`;
    return unreadable;
}

export function registerRagTools(): void {
    registerTool({
        name: 'rag_add',
        description: '把一个网页（http/https）或项目里的文件收录进本地知识库（执行前会请用户确认）',
        parameters: {
            type: 'object',
            properties: { source: { type: 'string', description: '网址，或相对根目录的文件路径' } },
            required: ['source'],
            additionalProperties: false,
        },
        async run(args, signal) {
            const source = stringArg(args, 'source').trim();
            if (unreadable) return unreadable;
            const isUrl = /^https?:\/\//i.test(source);
            const bad = isUrl ? checkUrl(source) : null;
            if (bad) return bad;
            // 收录会读文件或联网，收进来的文字以后会进模型的上下文：先问。网址下面一行是真正要连的主机（同 fetch）
            const host = isUrl ? `\n主机：${new URL(source).host}` : '';
            if (!(await confirm(`即将收录到知识库：${source}${host}\n确认收录？`))) return '已取消收录';
            // 先脱敏整篇再切块：块的边界不会把一个密钥切成认不出的两半，知识库文件里也不存你的密钥
            const text = redact(isUrl ? await fetchText(source, signal) : readFile(source));
            if (!text.trim()) return `${source} 里没有文字，没有收录`;
            const next = [...docs.filter((d) => d.source !== source), { source, chunks: chunkText(text, CHUNK, OVERLAP) }];
            writeJsonAtomic(RAG_FILE, { docs: next });   // 第 6 天的原子写入；先写盘成功，再改内存
            docs = next;
            return `已收录 ${source}：${text.length} 个字符，${next.at(-1)!.chunks.length} 块`;
        },
    });
    registerTool({
        name: 'rag_search',
        description: '在本地知识库里检索。回答关于已收录资料的问题之前，先用它查原文',
        parameters: {
            type: 'object',
            properties: { query: { type: 'string', description: '问题或关键词' } },
            required: ['query'],
            additionalProperties: false,
        },
        run: (args) => ragSearch(stringArg(args, 'query')),
    });
}

/** 所有文档的所有块一起排序，每次现建索引：几篇文档、几百块时看不出开销。 */
export function ragSearch(query: string): string {
    if (unreadable) return unreadable;
    const all = docs.flatMap((d) => d.chunks.map((text, i) => ({ source: d.source, n: i + 1, text })));
    if (all.length === 0) return '知识库还是空的：先用 rag_add 收录';
    const hits = rank(all.map((c) => c.text), query, TOP).map((at, i) => `${i + 1}. 「${all[at].source}」第 ${all[at].n} 块：${all[at].text}`);
    return hits.length ? `找到 ${hits.length} 块：\n${hits.join('\n')}` : '知识库里没有相关的内容：换个说法试试';
}

/** /rag 命令：收录了哪些文档、各几块。 */
export function ragStats(): string {
    if (unreadable) return unreadable;
    if (docs.length === 0) return '知识库是空的（让模型用 rag_add 收录一个文件或网址）';
    return [`知识库：${docs.length} 篇`, ...docs.map((d, i) => `${i + 1}. ${d.source}（${d.chunks.length} 块）`)].join('\n');
}

/** 根目录里的文件（经 safePath：越界时抛出），.html 也转成文字。 */
function readFile(source: string): string {
    const file = safePath(source);
    // 只读普通文件：命名管道会让读一直等下去，几个 GB 的文件会撑爆内存
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_SOURCE_BYTES) throw new Error(`只收录不超过 4 MiB 的普通文件：${source}`);
    const raw = fs.readFileSync(file, 'utf8');
    return /\.html?$/i.test(file) ? htmlToText(raw) : raw;
}
