// 第 4 天：文件工具 ls / read / glob / write / patch，路径相对当前目录；write、patch 先问。
import fs from 'node:fs';
import path from 'node:path';
import { confirm, registerTool } from './tools.js';

const obj = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required });
const str = { type: 'string' };

registerTool({
    name: 'ls',
    description: '列出目录里的文件和子目录（子目录带 /）',
    parameters: obj({ path: str }, []),
    run: ({ path: dir }) => fs.readdirSync(dir || '.', { withFileTypes: true })
        .map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).join('\n') || '（空目录）',
});

registerTool({
    name: 'read',
    description: '读出一个文本文件',
    parameters: obj({ path: str }, ['path']),
    run: ({ path: file }) => fs.readFileSync(file, 'utf8'),
});

// ** 匹配任意层目录，* 和 ? 不跨 /
function toRegExp(pattern: string): RegExp {
    let re = '';
    for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i];
        if (c === '*' && pattern[i + 1] === '*') {
            re += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
            i += pattern[i + 2] === '/' ? 2 : 1;
        } else if (c === '*') re += '[^/]*';
        else if (c === '?') re += '[^/]';
        else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    return new RegExp(`^${re}$`);
}

// 从当前目录往下走，不进 node_modules 和点目录
function walk(dir: string, out: string[]): void {
    for (const e of fs.readdirSync(dir || '.', { withFileTypes: true })) {
        if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
        const rel = dir ? `${dir}/${e.name}` : e.name;
        if (e.isDirectory()) walk(rel, out);
        else out.push(rel);
    }
}

registerTool({
    name: 'glob',
    description: '按通配符找文件，** 跨目录',
    parameters: obj({ pattern: str }, ['pattern']),
    run: ({ pattern }) => {
        const all: string[] = [];
        walk('', all);
        const re = toRegExp(pattern);
        return all.filter((f) => re.test(f)).slice(0, 200).join('\n') || '（没有匹配的文件）';
    },
});

async function writeConfirmed(file: string, content: string): Promise<boolean> {
    if (!(await confirm(`写入 ${file}（${content.length} 个字符）？`))) return false;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    return true;
}

registerTool({
    name: 'write',
    description: '写入一个文件的完整内容，先问用户',
    parameters: obj({ path: str, content: str }, ['path', 'content']),
    run: async ({ path: file, content }) => ((await writeConfirmed(file, content)) ? `已写入 ${file}` : '用户拒绝写入'),
});

registerTool({
    name: 'patch',
    description: '把文件里的 old 片段换成 new；每个 old 必须恰好出现一次',
    parameters: obj({ path: str, hunks: { type: 'array', items: obj({ old: str, new: str }, ['old', 'new']) } }, ['path', 'hunks']),
    run: async ({ path: file, hunks }) => {
        let text = fs.readFileSync(file, 'utf8');
        for (const h of hunks) {
            const at = text.indexOf(h.old);
            if (at < 0) return `没找到：${h.old}`;
            if (text.indexOf(h.old, at + 1) >= 0) return `出现了不止一次，请多带些上下文：${h.old}`;
            text = text.slice(0, at) + h.new + text.slice(at + h.old.length);
        }
        return (await writeConfirmed(file, text)) ? `已修改 ${file}` : '用户拒绝修改';
    },
});
