// Day 4：手写的 glob 匹配器（Node 20 没有 fs.glob）。
// 支持 ** * ? [abc] [a-z] [!a] {a,b}；通配符不匹配以 . 开头的名字，除非模式段本身以 . 开头。
import fs from 'node:fs';
import path from 'node:path';

export const GLOB_LIMIT = 200;

// 一个路径段的模式拆成记号（段内匹配，不跨 /）：'*' 是任意一串字符；函数匹配一个字符（? [abc] [a-z] [!a] 和普通字符）；
// 数组是 {a,b} 的几个选项，按字面。拿记号去匹配名字的是下面的 linearMatch。
type Token = '*' | ((c: string) => boolean) | string[];
function segmentTokens(seg: string): Token[] {
    const tokens: Token[] = [];
    for (let i = 0; i < seg.length; i++) {
        const c = seg[i];
        if (c === '*') tokens.push('*');
        else if (c === '?') tokens.push(() => true);
        else if (c === '[' && seg.includes(']', i + 2)) {
            const end = seg.indexOf(']', i + 2);
            const body = seg.slice(i + 1, end).replace(/\\/g, '\\\\').replace(/^!/, '^');
            const set = new RegExp(`[${body}]`);   // 字符类借正则来测：只测一个字符，不会回溯
            tokens.push((ch) => set.test(ch));
            i = end;
        } else if (c === '{' && seg.includes('}', i)) {
            const end = seg.indexOf('}', i);
            tokens.push(seg.slice(i + 1, end).split(','));
            i = end;
        } else tokens.push((ch) => ch === c);   // 其余按字面，没有闭合的 [ 和 { 也是
    }
    return tokens;
}

export function matchSegment(seg: string, name: string): boolean {
    if (name.startsWith('.') && !seg.startsWith('.')) return false;
    return linearMatch(seg, name);
}

/**
 * 从 base 开始按模式遍历目录。结果是相对 base 的路径（用 /），目录以 / 结尾，排好序。
 * 超过 GLOB_LIMIT 个就停止遍历，truncated 为 true。
 */
export function glob(pattern: string, base: string): { paths: string[]; truncated: boolean } {
    // 「.」段去掉：./src/*.ts 和 src/*.ts 一样
    const segs = pattern.replace(/\\/g, '/').split('/').filter((s, i) => (s !== '' || i === 0) && s !== '.').filter(collapseStars);
    const absolute = segs[0] === '';
    const root = absolute ? '/' : base;
    if (absolute) segs.shift();
    const found = new Set<string>();

    const walk = onceEach((rel: string, i: number): void => {
        if (found.size > GLOB_LIMIT) return;
        const seg = segs[i];
        // 「..」不会出现在目录列表里：直接走到上一级
        if (seg === '..') {
            if (i + 1 === segs.length) found.add(rel + '../');
            else walk(rel + '../', i + 1);
            return;
        }
        const dir = path.join(root, rel);
        let entries: fs.Dirent[];
        try {
            entries = fs.readdirSync(dir, { withFileTypes: true });
        } catch {
            return;
        }
        if (seg === '**') {
            if (i + 1 < segs.length) walk(rel, i + 1);   // ** 匹配零层
            for (const e of entries) {
                // ** 不进入点目录、node_modules，也不跟随符号链接
                if (e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules') {
                    const sub = rel + e.name + '/';
                    if (i + 1 === segs.length) found.add(sub);
                    walk(sub, i);
                }
            }
            return;
        }
        for (const e of entries) {
            if (e.name === 'node_modules' || !matchSegment(seg, e.name)) continue;
            const isDir = e.isDirectory();
            if (i + 1 === segs.length) found.add(rel + e.name + (isDir ? '/' : ''));
            else if (isDir) walk(rel + e.name + '/', i + 1);
            if (found.size > GLOB_LIMIT) return;
        }
    });
    if (segs.length) walk('', 0);
    const paths = [...found].sort().map((p) => (absolute ? '/' + p : p));
    return { paths: paths.slice(0, GLOB_LIMIT), truncated: paths.length > GLOB_LIMIT };
}

// —— 加固：线性时间的匹配（不用回溯正则），编译结果缓存起来；遍历对目录树是线性的 ——

// 连着的几个 ** 和一个 ** 匹配的完全一样：合成一个（过滤用的回调，看的是去掉「.」段之后的前一段）
function collapseStars(seg: string, i: number, segs: string[]): boolean {
    return !(seg === '**' && segs[i - 1] === '**');
}

// 同一个目录、同一个模式位置只走一次。** 后面再有 ** 或 *（**/*/**/x）时，同一个目录能从很多条路走到，
// 不记下来的话要走的次数随段数指数增长；记下来以后，最多走 目录数 × 模式段数 次
function onceEach(walk: (rel: string, i: number) => void): (rel: string, i: number) => void {
    const seen = new Set<string>();
    return (rel, i) => {
        const key = `${i}:${rel}`;
        if (seen.has(key)) return;
        seen.add(key);
        walk(rel, i);
    };
}
// 把模式转成正则最直接，但回溯正则遇到 *a*a*a*a…b 和一个长名字，要试的切法随星号个数指数增长，Agent 就卡死了；
// glob 不用确认，模型一句话就能让它卡住。这里把记号连成一张图（NFA），逐个字符推进「此刻可能停在图上哪些位置」
// 的集合，每个位置每个字符最多看一次：时间不超过 名字长度 × 模式长度，没有回溯。
// ** 遍历大目录时同一段要和成千上万个名字比较，编译好的图缓存起来。

// 图上的一个位置：test 为 null 的是分叉（{a,b} 的入口，不吃字符，next 是各个选项）；其余的吃一个字符，next 只有一个；
// loop 的是 *（吃一个字符后留在原地，也可以不吃、直接跳到 next）
interface Step { test: ((c: string) => boolean) | null; loop: boolean; next: number[] }
const ACCEPT = -1;   // 走到这里、名字也正好用完，就是匹配
const cache = new Map<string, { steps: Step[]; start: number }>();

function linearMatch(seg: string, name: string): boolean {
    if (!cache.has(seg)) cache.set(seg, compile(segmentTokens(seg)));
    const { steps, start } = cache.get(seg)!;
    let at = reach(steps, [start]);
    // 按 UTF-16 码元逐个走，和原来的正则（不带 u 标志）一样：? 匹配一个码元
    for (let i = 0; i < name.length && at.size > 0; i++) {
        const next: number[] = [];
        for (const id of at) {
            if (id !== ACCEPT && steps[id].test?.(name[i])) next.push(steps[id].loop ? id : steps[id].next[0]);
        }
        at = reach(steps, next);
    }
    return at.has(ACCEPT);
}

/** 从后往前连：每个记号指向它后面那一步，所以不需要回填。 */
function compile(tokens: Token[]): { steps: Step[]; start: number } {
    const steps: Step[] = [];
    const add = (test: Step['test'], loop: boolean, next: number[]) => steps.push({ test, loop, next }) - 1;
    let follow = ACCEPT;
    for (let t = tokens.length - 1; t >= 0; t--) {
        const token = tokens[t];
        if (token === '*') follow = add(() => true, true, [follow]);
        else if (typeof token === 'function') follow = add(token, false, [follow]);
        else {
            const after = follow;   // 每个选项按字面连成一串，末尾接到同一个后继上
            follow = add(null, false, token.map((option) => {
                let to = after;
                for (let k = option.length - 1; k >= 0; k--) {
                    const ch = option[k];
                    to = add((c) => c === ch, false, [to]);
                }
                return to;
            }));
        }
    }
    return { steps, start: follow };
}

/** 加上不吃字符就能到的位置：分叉的每个选项，* 后面那一步（* 可以匹配零个字符）。用栈不用递归：模式可能很长。 */
function reach(steps: Step[], ids: number[]): Set<number> {
    const seen = new Set<number>();
    const todo = [...ids];
    while (todo.length > 0) {
        const id = todo.pop()!;
        if (seen.has(id)) continue;
        seen.add(id);
        if (id !== ACCEPT && (steps[id].test === null || steps[id].loop)) for (const to of steps[id].next) todo.push(to);
    }
    return seen;
}
