// Day 4：diff：去掉相同的开头和结尾，中间逐行比较（- 是删掉的行，+ 是新加的行），前后各留 3 行上下文。
const CONTEXT = 3;

export function diff(oldText: string, newText: string): string {
    const a = lines(oldText);
    const b = lines(newText);
    let p = 0;
    while (p < a.length && p < b.length && a[p] === b[p]) p++;
    let s = 0;
    while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
    return [
        ...a.slice(Math.max(0, p - CONTEXT), p).map((l) => ' ' + l),
        ...middle(a.slice(p, a.length - s), b.slice(p, b.length - s)),   // 逐行比较，算法在分隔线下面
        ...a.slice(a.length - s, a.length - s + CONTEXT).map((l) => ' ' + l),
    ].join('\n');
}

export interface Hunk {
    old: string;
    new: string;
}

/** 依次把每个 hunk 应用到工作副本上；old 必须恰好出现一次。出错时抛出给模型看的说明。 */
export function applyHunks(text: string, hunks: Hunk[]): string {
    checkHunks(hunks);
    let work = text;
    for (const h of hunks) {
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

// —— 加固：换行统一、逐行比较、hunk 格式检查 ——
// diff 不截断：确认提示太长时只显示开头，回答 d 分页看全文（input.ts 的 askPaged），所以答 y 之前每一行都看得到。

/** 按行切开：CRLF 当 LF，去掉一个结尾换行，空文本没有行（否则只差换行风格的文件整篇都显示成改动）。 */
export function lines(text: string): string[] {
    const t = text.replace(/\r\n/g, '\n').replace(/\n$/, '');
    return t === '' ? [] : t.split('\n');
}

const MAX_EDITS = 1000;   // 删加的行超过这么多就不再逐行比较

/**
 * 去掉相同的开头和结尾之后的中间一段（首尾都是改动）：逐行比较，相同的行原样保留，
 * 太长的一段相同的行只留前后 CONTEXT 行。删加超过 MAX_EDITS 行时整段算删除 + 新增（几乎重写的文件本来也就是这样）。
 */
function middle(a: string[], b: string[]): string[] {
    const ops = editScript(a, b) ?? a.map((l) => '-' + l).concat(b.map((l) => '+' + l));
    return collapsed(grouped(ops));
}

/**
 * Myers 算法（1986）：在「a 的第 x 行对 b 的第 y 行」的网格里找删加最少的路径。第 d 步对每条对角线 k = x - y
 * 记下只用 d 次删加能走到的最远的 x（数组 V），相同的行沿对角线白走。时间 O((N+M)·D)，D 是删加的行数；
 * 每一步的 V 都存一份（第 d 步长 2d+1）供回溯，内存 O(D²)。D 超过 MAX_EDITS 返回 null。
 */
function editScript(a: string[], b: string[]): string[] | null {
    const max = Math.min(a.length + b.length, MAX_EDITS);
    const offset = max + 1;
    const v = new Int32Array(2 * max + 3);
    const trace: Int32Array[] = [];
    for (let d = 0; d <= max; d++) {
        for (let k = -d; k <= d; k += 2) {
            // 从 k+1 往下走一步（b 多一行）或从 k-1 往右走一步（a 少一行），取走得更远的那个
            const down = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]);
            let x = down ? v[offset + k + 1] : v[offset + k - 1] + 1;
            let y = x - k;
            while (x < a.length && y < b.length && a[x] === b[y]) x++, y++;
            v[offset + k] = x;
            if (x >= a.length && y >= b.length) return backtrack(a, b, trace);
        }
        trace.push(v.slice(offset - d, offset + d + 1));   // 第 d 步的 V，下标 k + d
    }
    return null;
}

// 从终点往回走：每一步先退回相同的一段，再退回那一次删或加（和前进时同样的选法），得到正序的 ' '/-/+ 行
function backtrack(a: string[], b: string[], trace: Int32Array[]): string[] {
    const out: string[] = [];
    let x = a.length;
    let y = b.length;
    for (let d = trace.length; d > 0; d--) {
        const at = (k: number) => trace[d - 1][k + d - 1];
        const k = x - y;
        const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
        const from = down ? at(k + 1) : at(k - 1);
        while (x > (down ? from : from + 1)) out.push(' ' + a[--x]), y--;
        out.push(down ? '+' + b[--y] : '-' + a[--x]);
    }
    while (x > 0) out.push(' ' + a[--x]);
    return out.reverse();
}

// 每段连续的改动里先列删掉的行、再列新加的行，和常见的 diff 一样
function grouped(ops: string[]): string[] {
    const out: string[] = [];
    let added: string[] = [];
    for (const op of ops) {
        if (op[0] === '+') added.push(op);
        else if (op[0] === '-') out.push(op);
        else {
            for (const line of added) out.push(line);
            added = [];
            out.push(op);
        }
    }
    for (const line of added) out.push(line);
    return out;
}

// 两处改动之间相同的行太多时只留前后各 CONTEXT 行，中间换成一行说明
function collapsed(ops: string[]): string[] {
    const out: string[] = [];
    for (let i = 0; i < ops.length;) {
        let j = i;
        while (j < ops.length && ops[j][0] === ' ') j++;
        if (j - i > 2 * CONTEXT + 1) {
            for (const line of ops.slice(i, i + CONTEXT)) out.push(line);
            out.push(`…（中间 ${j - i - 2 * CONTEXT} 行没有改动）`);
            for (const line of ops.slice(j - CONTEXT, j)) out.push(line);
        } else {
            for (const line of ops.slice(i, j)) out.push(line);
        }
        if (j < ops.length) out.push(ops[j]);
        i = j + 1;
    }
    return out;
}

/** 模型给的 hunks 先整体检查一遍：非空数组，每项都有字符串 old（非空）和 new。 */
function checkHunks(hunks: Hunk[]): void {
    if (!Array.isArray(hunks) || hunks.length === 0) throw new Error('hunks 为空，没有做任何修改');
    for (const h of hunks) {
        if (typeof h?.old !== 'string' || typeof h?.new !== 'string') throw new Error('每个 hunk 都需要字符串 old 和 new');
        if (h.old === '') throw new Error('hunks 里有空的 old 片段');
    }
}
