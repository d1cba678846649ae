// Day 14：轻量 RAG 知识库。文档切成 800 字符的块存进 .geekagent/rag/index.json，用 BM25 检索。
// 没有向量、没有重排：关键词 + 双字切分已经能回答「文档里怎么说的」这类问题。
import path from 'node:path';
import { buildIndex, chunkText, rank, recallTerms } from './bm25.ts';
import { readRegularFile } from './regular-file.ts';
import { hostNote } from './host.ts';
import { htmlToText } from './html.ts';
import { authorize, safePath } from './permissions.ts';
import { redact, redactFileContent } from './redact.ts';
import { registerTool } from './tools.ts';
import { FETCH_TIMEOUT_MS, fetchText } from './web.ts';
import { loadOwnJson, writeOwnJson } from './written.ts';   // 只认、只覆盖这个用户的 Agent 写的知识库

export const RAG_FILE = '.geekagent/rag/index.json';
const CHUNK = 800;
const TOP = 4;

interface Doc {
    title: string;
    source: string;
    addedAt: string;
    chunks: { start: number; text: string }[];
}

let docs: Doc[] = [];

/** 启动时读取。文件读不出来就抛出（入口报错退出，不覆盖文件）。 */
export function loadRag(): void {
    const loaded = loadOwnJson<{ docs?: unknown }>(RAG_FILE);
    if (loaded.state === 'missing') return;
    if (loaded.state === 'error') throw new Error(`读取知识库失败：${loaded.message}`);
    docs = usableDocs(loaded.data?.docs);
}

export async function addToRag(source: string, signal?: AbortSignal): Promise<string> {
    source = source.trim();
    if (!source) return '缺少要收录的来源';
    if (!(await authorize('rag_add', `即将收录到知识库：\n${source}${hostNote(source)}\n确认收录？`))) return '已取消收录';
    if (docs.some((d) => d.source === source)) return '已在知识库中，跳过';
    const read = await readSource(source, signal).catch((e: Error) => `收录失败：${e.message}`);
    if (typeof read === 'string') return read;
    const { title, text } = withoutSecrets(read);
    if (!text.trim()) return '内容为空，未收录';
    if (tooBig(text)) return `内容太大（${text.length} 个字符，上限 2MB），未收录`;
    const chunks = chunkText(text, CHUNK);
    const doc = { title: title.slice(0, 120), source, addedAt: new Date().toISOString(), chunks };
    appendKeepingUnreadable(doc);   // 写入知识库文件，再加进内存
    return `已加入知识库：「${doc.title}」— ${text.length} 个字符 / ${chunks.length} 块`;
}

/** 网址用 fetchText 抓；其余当作根目录内的文件（经 safePath，越界抛出），.html 文件也转成文字。 */
async function readSource(source: string, signal?: AbortSignal): Promise<{ title: string; text: string }> {
    if (/^https?:\/\//i.test(source)) {
        const r = await fetchText(source, FETCH_TIMEOUT_MS, signal);   // 取消这一轮时连接立刻断开
        if (!r.ok) throw new Error(r.message);
        return { title: r.title || source, text: r.text };
    }
    const file = safePath(source);
    const raw = readRegularFile(file, SOURCE_CAP);
    const html = /\.html?$/i.test(file);
    return { title: path.basename(file), text: html ? htmlToText(raw) : raw };
}

export function ragSearch(query: string): string {
    if (docs.length === 0) return '知识库还是空的；先用 rag_add 或 /rag add 收录';
    const terms = recallTerms(query);
    if (terms.length === 0) return '没有匹配的知识块';
    const all = docs.flatMap((d) => d.chunks.map((c, i) => ({ doc: d, n: i + 1, text: c.text })));
    const hits = rank(buildIndex(all.map((c) => c.text)), terms, TOP);
    if (hits.length === 0) return '没有匹配的知识块；换个更具体的说法试试';
    const lines = hits.map((h, i) => `${i + 1}. 「${all[h.index].doc.title}」第 ${all[h.index].n} 段：${all[h.index].text}`);
    return `匹配到 ${hits.length} 块：\n${lines.join('\n')}`;
}

/** /rag 的统计：篇数、块数、字符数，再逐篇列出。 */
export function ragStats(): string {
    if (docs.length === 0) return '知识库是空的（用 /rag add <网址或文件> 收录）' + skippedNote();
    const size = (d: Doc) => d.chunks.reduce((end, c) => Math.max(end, c.start + c.text.length), 0);   // 最后一块的末尾
    const chunks = docs.reduce((n, d) => n + d.chunks.length, 0);
    const chars = docs.reduce((n, d) => n + size(d), 0);
    return [`知识库：${docs.length} 篇文档 / ${chunks} 块 / ${chars} 个字符：`,
        ...docs.map((d, i) => `${i + 1}. 「${d.title}」（${d.chunks.length} 块，${d.source}）`)].join('\n') + skippedNote();
}

export function registerRagTools(): void {
    registerTool({
        name: 'rag_add',
        description: '把一个网页（http/https）或项目内的文件收录进本地知识库（执行前会请用户确认）',
        parameters: {
            type: 'object',
            properties: { source: { type: 'string', description: '网址，或相对根目录的文件路径' } },
            required: ['source'],
            additionalProperties: false,
        },
        authorizes: true,
        run: (args, signal) => addToRag(typeof args.source === 'string' ? args.source : '', signal),
    });

    registerTool({
        name: 'rag_search',
        description: '在本地知识库里检索。回答关于已收录资料的问题之前，先用它查原文。',
        parameters: {
            type: 'object',
            properties: { query: { type: 'string', description: '自然语言问题或关键词' } },
            required: ['query'],
            additionalProperties: false,
        },
        run: (args) => ragSearch(typeof args.query === 'string' ? args.query : ''),
    });
}

// —— 加固：缺字段的存档、写回时不丢认不出的文档、脱敏、大小上限 ——

// 文件里原样的文档：写回时用它，缺字段、认不出的文档也照样留在磁盘上
let stored: unknown[] = [];
let skipped = 0;

/** 没有 docs 数组就抛出；缺字段的文档尽量用上，用不上的跳过（计入 skipped），但都留在 stored 里。 */
function usableDocs(list: unknown): Doc[] {
    if (!Array.isArray(list)) throw new Error(`读取知识库失败：${RAG_FILE} 里没有 docs 数组`);
    stored = list;
    const usable = stored.map(usableDoc).filter((d): d is Doc => d !== null);
    skipped = stored.length - usable.length;
    return usable;
}

/** 把一篇存档文档整理成能用的样子：缺标题用来源代替，坏掉的块跳过。整理不出来返回 null。 */
function usableDoc(d: any): Doc | null {
    if (!d || typeof d !== 'object' || !Array.isArray(d.chunks)) return null;
    const chunks = d.chunks.filter((c: any) => c && typeof c.text === 'string' && typeof c.start === 'number');
    const source = typeof d.source === 'string' ? d.source : '';
    const title = typeof d.title === 'string' && d.title ? d.title : source || '（无标题）';
    return { title, source, addedAt: typeof d.addedAt === 'string' ? d.addedAt : '', chunks };
}

/** 写回时用 stored，认不出的文档照样留在文件里；先写盘成功，再改内存。 */
function appendKeepingUnreadable(doc: Doc): void {
    writeOwnJson(RAG_FILE, { docs: [...stored, doc] });
    stored = [...stored, doc];
    docs = [...docs, doc];
}

function skippedNote(): string {
    return skipped ? `\n（另有 ${skipped} 篇文档格式不对，没有载入；文件里保留原样）` : '';
}

/**
 * 先脱敏整篇再切块：块边界不会把密钥切成认不出的两半，知识库文件里也不存原值。
 * 检索结果交给模型时 execTool 还会按结果的规则再过一遍；这里管的是写进知识库文件的这条路。
 */
function withoutSecrets(doc: { title: string; text: string }): { title: string; text: string } {
    return { title: redact(doc.title), text: redactFileContent(doc.text) };   // 像 .env 的行逐行换掉，注释掉的旧密钥也在内
}

const MAX_CHARS = 2 * 1024 * 1024;
const SOURCE_CAP = 8 * 1024 * 1024;   // 本地文件最多读 8 MiB（HTML 转成文字会变短）；命名管道、设备不读，免得收录卡住

function tooBig(text: string): boolean {
    return text.length > MAX_CHARS;
}
