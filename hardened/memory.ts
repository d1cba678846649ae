// Day 10：长期记忆。.geekagent/memory.json 是字符串数组，跨对话、跨进程保留。
// Day 13：每轮开始前按用户原话自动召回相关记忆，放进这一轮的系统提示。
import { buildIndex, chunkEntry, rank, recallTerms, searchTerms, type Bm25Index } from './bm25.ts';
import type { Loaded } from './storage.ts';
import { registerTool } from './tools.ts';
import { loadOwnJson, writeOwnJson } from './written.ts';   // 只认、只覆盖这个用户的 Agent 写的记忆

export const MEMORY_FILE = '.geekagent/memory.json';
let memories: string[] = [];

export function getMemories(): string[] {
    return memories;
}

/** 启动时读取；格式不对就抛出，由入口报错退出，绝不覆盖用户的文件。 */
export function loadMemory(): void {
    memories = checkedMemories(loadOwnJson(MEMORY_FILE));
}

/** Day 13：memory_search 工具。关键词按空白切开，在切好块的记忆里用 BM25 排序。 */
export function searchMemory(query: string): string {
    const terms = searchTerms(query);
    const hits = terms.length && memories.length ? hitLines(terms) : [];
    return hits.length ? `找到 ${hits.length} 条相关记忆：\n${hits.join('\n')}` : '没有找到相关记忆';
}

/** 每轮开始前自动召回：用户原话分词后检索，没有命中返回空串。 */
export function recallMemory(text: string): string {
    const terms = recallTerms(text);
    const hits = terms.length && memories.length ? hitLines(terms) : [];
    return hits.length ? `自动召回了 ${hits.length} 条相关记忆（仅供参考）：\n${hits.join('\n')}` : '';
}

/** 前 5 块，标出第几条记忆的第几块。 */
function hitLines(terms: string[]): string[] {
    const { chunks, bm25 } = cachedMemoryIndex();
    return rank(bm25, terms, 5).map((h, i) => {
        const c = chunks[h.index];
        return `${i + 1}. （第 ${c.entry + 1} 条，第 ${c.index + 1} 块）${c.text}`;
    });
}

export function memoryBlocks(): number {
    return cachedMemoryIndex().chunks.length;
}

export function registerMemoryTools(changed: () => void): void {
    registerTool({
        name: 'memory_write',
        description: '把值得跨对话保留的用户偏好、项目事实或重要决定写入长期记忆（可以是多段的长文本，最多 4000 字符）。不要记临时进度或能从文件里读到的东西。',
        parameters: {
            type: 'object',
            properties: { content: { type: 'string', description: '一条简洁、离开当前对话也能看懂的事实' } },
            required: ['content'],
            additionalProperties: false,
        },
        run(args) {
            const full = typeof args.content === 'string' ? args.content.trim() : '';
            if (!full) return '缺少参数：content';
            const content = withinEntryLimit(full);   // Day 13：一条最多 4000 字符
            if (memories.includes(content)) return '这条记忆已经存在';
            writeOwnJson(MEMORY_FILE, [...memories, content]);   // 先写盘成功，再改内存
            memories = [...memories, content];
            changed();
            return content.length < full.length ? `已记住（过长已截断）：${content}` : `已记住：${content}`;
        },
    });
    registerTool({
        name: 'memory_search',
        description: '按关键词检索长期记忆（BM25，空格分隔多个关键词）。需要用户偏好或项目事实时先搜索，不要猜。',
        parameters: {
            type: 'object',
            properties: { query: { type: 'string', description: '空格分隔的关键词' } },
            required: ['query'],
            additionalProperties: false,
        },
        run: (args) => searchMemory(typeof args.query === 'string' ? args.query : ''),
    });
}

// —— 加固：读坏的记忆文件 ——

/** 没有文件 = 没有记忆；读不出来、不是字符串数组都抛出。空白条目去掉。 */
function checkedMemories(loaded: Loaded<unknown>): string[] {
    if (loaded.state === 'missing') return [];
    if (loaded.state === 'error') throw new Error(`读取长期记忆失败：${loaded.message}`);
    const data = loaded.data;
    if (!Array.isArray(data) || data.some((m) => typeof m !== 'string')) throw new Error(`读取长期记忆失败：${MEMORY_FILE} 必须是字符串数组`);
    return data.map((m: string) => m.trim()).filter(Boolean);
}

// Day 13：记忆索引的缓存和一条记忆的上限
// 索引只在记忆变化时重建：memories 每次写入都换成新数组，数组没换就复用上次的切块和索引，
// 每轮自动召回只查索引（1000 条记忆每次召回约 3.6 ms，npm run bench -- search）。
let index: { of: string[]; chunks: ReturnType<typeof chunkEntry>; bm25: Bm25Index } | null = null;

function cachedMemoryIndex() {
    if (index?.of !== memories) {
        const chunks = memories.flatMap((text, i) => chunkEntry(text, i));
        index = { of: memories, chunks, bm25: buildIndex(chunks.map((c) => c.text)) };
    }
    return index;
}

const MAX_ENTRY = 4000;

/** 截断后再去掉行尾空白：启动时读入会 trim，不去掉的话重启后同一段长文就查不出重复。 */
function withinEntryLimit(full: string): string {
    return full.slice(0, MAX_ENTRY).trimEnd();
}
