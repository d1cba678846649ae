// Markdown 里能链接到的锚点：GitHub 的标题锚点，加上 <a id="…"></a> 这样写出来的别名。
// 标题锚点的规则：小写，去掉标点（保留字母、数字含汉字、空格、- 和 _），空格换成 -；重名的依次加 -1、-2。代码块里的 # 不是标题。

export function anchors(markdown: string): Set<string> {
    const seen = new Map<string, number>();
    const out = new Set<string>();
    let fenced = false;
    for (const line of markdown.split('\n')) {
        if (line.startsWith('```')) fenced = !fenced;
        if (fenced) continue;
        for (const m of line.matchAll(/<a (?:id|name)="([^"]+)"/g)) out.add(m[1]);
        const heading = /^#{1,6} (.+)$/.exec(line);
        if (!heading) continue;
        const base = heading[1].trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
        const n = seen.get(base) ?? 0;
        seen.set(base, n + 1);
        out.add(n === 0 ? base : `${base}-${n}`);
    }
    return out;
}
