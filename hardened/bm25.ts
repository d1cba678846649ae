// Day 13：BM25 检索的纯函数部分（长期记忆和知识库共用）：切块、分词、打分。
// 不用词典：中文按相邻两字切成“二元词”，英文和数字按连续字母数字切词。
// 匹配按“子串包含”算：词 go 也会命中 google。好处是不用词干还原，
// 代价是很短的英文词（a、is）几乎处处命中——它们的 idf 很低，但分数仍大于 0。

export const CHUNK_SIZE = 320;       // 记忆的块大小；知识库传 800
export const CHUNK_OVERLAP = 80;     // 相邻块重叠的字符数，避免一句话被切断后两边都搜不到
export const K1 = 1.2;               // 词频饱和：同一个词出现越多，加分越少
export const B = 0.75;               // 长度归一：长块里出现一次不如短块里出现一次

export interface Chunk {
    start: number;   // 块在原文里的起始下标（UTF-16 单位）
    text: string;
}

/**
 * 切块：不超过 size 的文本整块返回；否则从 0、size−overlap、2(size−overlap)…开始
 * 各取 size 个字符，直到某一块碰到文末。按 UTF-16 单位切，极少数 emoji 可能被切成两半。
 */
export function chunkText(text: string, size = CHUNK_SIZE, overlap = CHUNK_OVERLAP): Chunk[] {
    const step = Math.max(1, size - overlap);   // 防止 overlap ≥ size 时死循环
    const chunks: Chunk[] = [];
    for (let start = 0; ; start += step) {
        chunks.push({ start, text: text.slice(start, start + size) });
        if (start + size >= text.length) return chunks;
    }
}

/** 切块并带上条目编号和块序号（都从 0 开始，显示时再加 1）。 */
export function chunkEntry(text: string, entry: number, size = CHUNK_SIZE) {
    return chunkText(text, size).map((c, index) => ({ entry, index, start: c.start, text: c.text }));
}

/** 归一化：小写，连续空白合成一个空格。打分、长度、包含判断都基于它。 */
export function normalize(text: string): string {
    return text.toLowerCase().replace(/\s+/g, ' ');
}

/** 分词：英文数字整段保留；单个汉字保留原样；连续汉字切成重叠的二元词（ABCD → AB BC CD）。 */
export function tokenize(text: string): string[] {
    const tokens: string[] = [];
    for (const run of normalize(text).match(/[\u4e00-\u9fa5]+|[a-z0-9]+/g) ?? []) {
        if (run.length === 1 || !/^[\u4e00-\u9fa5]/.test(run)) {
            tokens.push(run);
            continue;
        }
        for (let i = 0; i + 1 < run.length; i++) tokens.push(run.slice(i, i + 2));
    }
    return tokens;
}

/** memory_search 用的查询词：用户给的是关键词，按空白切开即可，不再二元切分。 */
export function searchTerms(query: string): string[] {
    return query.toLowerCase().split(/\s+/).filter((w) => w && !isStopWord(w));
}

/** 自动回忆和知识库用的查询词：原话整句分词后去掉停用词。 */
export function recallTerms(text: string): string[] {
    return tokenize(text).filter((w) => !isStopWord(w));
}

/** 预先归一化好的块集合：记忆没变时可以反复查同一个索引。 */
export interface Bm25Index {
    texts: string[];     // 归一化后的块文本
    avgdl: number;       // 平均长度；全是空块时记为 1，免得除以 0
}

export function buildIndex(chunkTexts: readonly string[]): Bm25Index {
    const texts = chunkTexts.map(normalize);
    const total = texts.reduce((sum, t) => sum + t.length, 0);
    return { texts, avgdl: total / texts.length || 1 };
}

/** 不重叠地数 term 在 text 里出现几次（"aaa" 里的 "aa" 算 1 次）。 */
function countOccurrences(text: string, term: string): number {
    let n = 0;
    for (let at = text.indexOf(term); at >= 0; at = text.indexOf(term, at + term.length)) n++;
    return n;
}

/**
 * BM25 排序：N = 块数，df = 包含该词的块数，
 * idf = ln(1 + (N − df + 0.5)/(df + 0.5))，每个词加 idf·tf·(k1+1)/(tf + k1·(1 − b + b·dl/avgdl))。
 * 只留分数 > 0 的块（index 是块在索引里的下标），分数从高到低，同分保持原顺序，取前 topK 个。
 */
export function rank(index: Bm25Index, terms: readonly string[], topK: number): { index: number; score: number }[] {
    const { texts, avgdl } = index;
    const n = texts.length;
    const scores = new Float64Array(n);
    for (const [term, times] of countTerms(terms)) {
        const found: [number, number][] = [];      // [块下标, tf]，顺便得到 df
        for (let i = 0; i < n; i++) {
            const tf = countOccurrences(texts[i], term);
            if (tf > 0) found.push([i, tf]);
        }
        if (found.length === 0) continue;
        const idf = Math.log(1 + (n - found.length + 0.5) / (found.length + 0.5));
        for (const [i, tf] of found) {
            const norm = K1 * (1 - B + B * texts[i].length / avgdl);
            scores[i] += times * idf * tf * (K1 + 1) / (tf + norm);
        }
    }
    const hits: { index: number; score: number }[] = [];
    for (let i = 0; i < n; i++) if (scores[i] > 0) hits.push({ index: i, score: scores[i] });
    return hits.sort((a, b) => b.score - a.score).slice(0, topK);
}

// —— 加固：停用词、查询里重复的词和空词 ——

/** 停用词：太常见，参与打分只会制造噪声。 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
    '的', '了', '是', '在', '和', '与', '及', '或', '也', '都', '就', '而', '把', '被', '对', '从',
    '这', '那', '我', '你', '他', '她', '它', '我们', '你们', '他们', '可以', '一个', '吗', '呢',
]);

function isStopWord(word: string): boolean {
    return STOP_WORDS.has(word);
}

/**
 * 查询词 → 出现次数。重复的词按出现次数重复计分（和逐个累加等价，只是整个语料只数一遍）；
 * 空词丢掉：空串在任何文本里都“出现”无数次，数它会停不下来。
 */
function countTerms(terms: readonly string[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const t of terms) if (t) counts.set(t, (counts.get(t) ?? 0) + 1);
    return counts;
}
