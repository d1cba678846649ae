// Day 4：最简单的 diff：去掉相同的开头和结尾，中间的部分整体算删除 + 新增。
// 不是真正的 LCS 算法：两处相距很远的修改会把中间的行也显示成 -/+ 对。
export const DIFF_MAX_LINES = 100;
const CONTEXT = 3;

export function lines(text: string): string[] {
    const t = text.replace(/\r\n/g, '\n').replace(/\n$/, '');
    return t === '' ? [] : t.split('\n');
}

export function diff(oldText: string, newText: string): string {
    const a = lines(oldText);
    const b = lines(newText);
    let p = 0;
    while (p < a.length && p < b.length && a[p] === b[p]) p++;
    let s = 0;
    while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
    const out = [
        ...a.slice(Math.max(0, p - CONTEXT), p).map((l) => ' ' + l),
        ...a.slice(p, a.length - s).map((l) => '-' + l),
        ...b.slice(p, b.length - s).map((l) => '+' + l),
        ...a.slice(a.length - s, a.length - s + CONTEXT).map((l) => ' ' + l),
    ];
    if (out.length <= DIFF_MAX_LINES) return out.join('\n');
    return [...out.slice(0, DIFF_MAX_LINES), `（diff 太长，还有 ${out.length - DIFF_MAX_LINES} 行未显示）`].join('\n');
}

export interface Hunk {
    old: string;
    new: string;
}

/** 依次把每个 hunk 应用到工作副本上；old 必须恰好出现一次。出错时抛出给模型看的说明。 */
export function applyHunks(text: string, hunks: Hunk[]): string {
    if (!Array.isArray(hunks) || hunks.length === 0) throw new Error('hunks 为空，没有做任何修改');
    let work = text;
    for (const h of hunks) {
        if (typeof h?.old !== 'string' || typeof h?.new !== 'string') throw new Error('每个 hunk 都需要字符串 old 和 new');
        if (h.old === '') throw new Error('hunks 里有空的 old 片段');
        const snippet = h.old.slice(0, 80);
        const at = work.indexOf(h.old);
        if (at === -1) throw new Error(`没有找到片段：${snippet}`);
        if (work.indexOf(h.old, at + 1) !== -1) throw new Error(`片段匹配到多处，请加长 old：${snippet}`);
        // 用 slice 拼接而不是 String.replace：替换文本里的 $& 之类不会被解释
        work = work.slice(0, at) + h.new + work.slice(at + h.old.length);
    }
    if (work === text) throw new Error('修改后的内容和原文相同，没有做任何修改');
    return work;
}
