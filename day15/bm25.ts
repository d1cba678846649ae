// Day 13：BM25 检索（第 13 天的记忆召回和第 14 天的知识库共用）：分词、切块、打分，都是纯函数。
// 不用词典：连续的汉字切成相邻两字的「二元词」，其他文字（英文、数字……）按连续的字母数字切成词。

const K1 = 1.2;    // 词频饱和：同一个词出现第二次，加分不如第一次多
const B = 0.75;    // 长度归一：在长块里出现一次，不如在短块里出现一次

// 一段连续的汉字，或者一段连续的别的字母数字（不含汉字：「abc测试」切成 abc 和 测试 两段）
const RUNS = /\p{Script=Han}+|(?:(?!\p{Script=Han})[\p{L}\p{N}])+/gu;

/** 「测试命令是 npm test」→ 测试 试命 命令 令是 npm test。只有一个字的汉字段保留那个字；大小写不分。 */
export function tokenize(text: string): string[] {
    const tokens: string[] = [];
    for (const run of text.toLowerCase().match(RUNS) ?? []) {
        if (!/\p{Script=Han}/u.test(run) || run.length === 1) tokens.push(run);
        else for (let i = 0; i + 1 < run.length; i++) tokens.push(run.slice(i, i + 2));
    }
    return tokens;
}

/**
 * 切块：每块 size 个字符，相邻两块重叠 overlap 个：一句话正好被切在边界上时，总有一块把它整个装下。
 * 不超过 size 的文字就是一块。按 UTF-16 单位切，极少数 emoji 会被切成两半。
 */
export function chunkText(text: string, size: number, overlap: number): string[] {
    const chunks: string[] = [];
    for (let start = 0; ; start += size - overlap) {
        chunks.push(text.slice(start, start + size));
        if (start + size >= text.length) return chunks;
    }
}

/**
 * BM25：查询里的每个词 t，给含有它的每一块加 idf(t) × tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl))。
 * N 是块数，df 是含有 t 的块数，idf = ln(1 + (N − df + 0.5) / (df + 0.5))：越少的块含有它，它越重要；
 * tf 是 t 在这一块里出现的次数，dl 是这一块的词数，avgdl 是平均词数。
 * 返回分数大于 0 的块在 texts 里的下标，从高到低，最多 topK 个。
 */
export function rank(texts: string[], query: string, topK: number): number[] {
    const docs = texts.map((text) => {
        const tf = new Map<string, number>();
        const tokens = tokenize(text);
        for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
        return { tf, length: tokens.length };
    });
    const avgdl = docs.reduce((sum, d) => sum + d.length, 0) / docs.length || 1;
    const scores = docs.map(() => 0);
    for (const term of new Set(tokenize(query))) {   // 查询里重复的词只算一次
        const df = docs.filter((d) => d.tf.has(term)).length;
        const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
        docs.forEach((d, i) => {
            const tf = d.tf.get(term) ?? 0;
            scores[i] += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * d.length) / avgdl));
        });
    }
    return scores.map((score, i) => ({ score, i }))
        .filter((h) => h.score > 0)
        .sort((a, b) => b.score - a.score)   // sort 是稳定的：同分的保持原来的顺序
        .slice(0, topK)
        .map((h) => h.i);
}
