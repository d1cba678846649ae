// Day 13：记忆的 BM25 检索。memory_search 工具和每轮开始前的自动召回都从这里找：长记忆切成 320 字符的块（相邻重叠 80），
// 用 BM25 排序，只交回命中的块，标出是第几条记忆的第几块。记忆本身仍由第 10 天的 memory.ts 存取，这里只读它交来的条目。
import { chunkText, rank } from './bm25.ts';

const CHUNK = 320;
const OVERLAP = 80;
const TOP = 5;

/** memory_search：按 BM25 找出最相关的块。 */
export function searchMemory(entries: string[], query: string): string {
    const hits = bestChunks(entries, query);
    return hits.length ? `找到 ${hits.length} 块相关记忆：\n${hits.join('\n')}` : '没有找到相关记忆';
}

/**
 * 每轮开始前的自动召回：用你这句话原样检索，命中的块成为这一轮系统提示的最后一节；没有命中就是空串。
 * 只进这一轮：系统提示每次请求都重新拼，召回的文字不进历史，下一句话按下一句重新找。
 */
export function recallMemory(entries: string[], text: string): string {
    const hits = bestChunks(entries, text);
    return hits.length ? `自动召回了 ${hits.length} 块和这句话相关的长期记忆（仅供参考）：\n${hits.join('\n')}` : '';
}

/** 每轮都从头切块、建索引：几十条记忆只要几毫秒，不值得多一份「记忆变了要重建」的缓存逻辑。 */
function bestChunks(entries: string[], query: string): string[] {
    const chunks = entries.flatMap((text, entry) => chunkText(text, CHUNK, OVERLAP).map((piece, index) => ({ entry, index, piece })));
    return rank(chunks.map((c) => c.piece), query, TOP).map((at, i) => {
        const { entry, index, piece } = chunks[at];
        return `${i + 1}. （第 ${entry + 1} 条，第 ${index + 1} 块）${piece}`;
    });
}
