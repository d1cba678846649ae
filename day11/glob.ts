// Day 4：手写的 glob（Node 20 没有 fs.glob）：模式换成一个正则，从当前目录往下走一遍，拿每个文件的相对路径去比。
// 不进入点目录（.git）和 node_modules：否则一个 **/*.ts 就走遍整棵依赖树。也不跟随符号链接，链接绕成圈也走得完。
import fs from 'node:fs';

export const GLOB_LIMIT = 200;   // 最多返回这么多个：再多就该让模型缩小模式

/** 匹配的文件（相对当前目录），最多 GLOB_LIMIT 个，按名字排序。 */
// Day 8：从权限的根目录往下走，找到的路径相对根目录
export function glob(pattern: string, root: string): string[] {
    const re = toRegExp(pattern.replace(/^\.\//, ''));
    const found: string[] = [];
    const walk = (dir: string) => {
        for (const e of fs.readdirSync(dir ? `${root}/${dir}` : root, { withFileTypes: true })) {
            if (found.length >= GLOB_LIMIT) return;
            const rel = dir ? `${dir}/${e.name}` : e.name;
            if (e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules') walk(rel);
            else if (e.isFile() && re.test(rel)) found.push(rel);
        }
    };
    walk('');
    return found.sort();
}

/** ** 匹配任意层目录，* 和 ? 不跨 /，{a,b} 是几个选项，别的字符按字面。 */
function toRegExp(pattern: string): RegExp {
    let re = '';
    let braces = 0;
    for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i];
        if (pattern.startsWith('**/', i)) {
            re += '(?:.*/)?';   // 零层或多层目录：**/*.ts 也匹配当前目录里的 a.ts
            i += 2;
        } else if (pattern.startsWith('**', i)) {
            re += '.*';
            i += 1;
        } else if (c === '*') re += '[^/]*';
        else if (c === '?') re += '[^/]';
        else if (c === '{') {
            re += '(?:';
            braces++;
        } else if (c === '}' && braces > 0) {
            re += ')';
            braces--;
        } else if (c === ',' && braces > 0) re += '|';
        else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
    return new RegExp(`^${re}$`);
}
