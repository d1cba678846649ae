// Day 4：手写的 glob 匹配器（Node 20 没有 fs.glob）。
// 支持 ** * ? [abc] [a-z] [!a] {a,b}；通配符不匹配以 . 开头的名字，除非模式段本身以 . 开头。
import fs from 'node:fs';
import path from 'node:path';

export const GLOB_LIMIT = 200;

/** 把一个路径段的模式转成正则（只在单个段内匹配，不跨 /）。 */
export function segmentRegExp(seg: string): RegExp {
    let re = '';
    for (let i = 0; i < seg.length; i++) {
        const c = seg[i];
        if (c === '*') re += '[^/]*';
        else if (c === '?') re += '[^/]';
        else if (c === '[') {
            const end = seg.indexOf(']', i + 2);
            if (end === -1) {
                re += '\\[';
                continue;
            }
            let body = seg.slice(i + 1, end).replace(/\\/g, '\\\\');
            if (body.startsWith('!')) body = '^' + body.slice(1);
            re += `[${body}]`;
            i = end;
        } else if (c === '{') {
            const end = seg.indexOf('}', i);
            if (end === -1) {
                re += '\\{';
                continue;
            }
            re += '(?:' + seg.slice(i + 1, end).split(',').map(escape).join('|') + ')';
            i = end;
        } else re += escape(c);
    }
    return new RegExp(`^${re}$`);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const cache = new Map<string, RegExp>();

export function matchSegment(seg: string, name: string): boolean {
    if (name.startsWith('.') && !seg.startsWith('.')) return false;
    if (!cache.has(seg)) cache.set(seg, segmentRegExp(seg));
    return cache.get(seg)!.test(name);
}

/**
 * 从 base 开始按模式遍历目录。结果是相对 base 的路径（用 /），目录以 / 结尾，排好序。
 * 超过 GLOB_LIMIT 个就停止遍历，truncated 为 true。
 */
export function glob(pattern: string, base: string): { paths: string[]; truncated: boolean } {
    // 「.」段去掉：./src/*.ts 和 src/*.ts 一样
    const segs = pattern.replace(/\\/g, '/').split('/').filter((s, i) => (s !== '' || i === 0) && s !== '.');
    const absolute = segs[0] === '';
    const root = absolute ? '/' : base;
    if (absolute) segs.shift();
    const found = new Set<string>();

    const walk = (rel: string, i: number): void => {
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
    };
    if (segs.length) walk('', 0);
    const paths = [...found].sort().map((p) => (absolute ? '/' + p : p));
    return { paths: paths.slice(0, GLOB_LIMIT), truncated: paths.length > GLOB_LIMIT };
}
