// Day 4：最小的行 diff：去掉相同的开头和结尾，中间的旧行记 -、新行记 +，前后各留 3 行上下文。
// 一处连续的改动显示得和常见的 diff 一样；两处相隔很远的改动，会把中间没改的行也显示成先删后加（不会漏掉任何一行改动）。
const CONTEXT = 3;

export function diff(oldText: string, newText: string): string {
    const a = lines(oldText);
    const b = lines(newText);
    let head = 0;   // 相同的开头有几行
    while (head < a.length && head < b.length && a[head] === b[head]) head++;
    let tail = 0;   // 相同的结尾有几行（不和开头重叠）
    while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
    return [
        ...a.slice(Math.max(0, head - CONTEXT), head).map((line) => ` ${line}`),
        ...a.slice(head, a.length - tail).map((line) => `-${line}`),
        ...b.slice(head, b.length - tail).map((line) => `+${line}`),
        ...a.slice(a.length - tail, a.length - tail + CONTEXT).map((line) => ` ${line}`),
    ].join('\n');
}

// 按行切开：结尾的一个换行不算一行；CRLF 当 LF，否则只差换行风格的文件整篇都显示成改动
function lines(text: string): string[] {
    const t = text.replace(/\r\n/g, '\n').replace(/\n$/, '');
    return t === '' ? [] : t.split('\n');
}
