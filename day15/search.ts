// Day 12：代码搜索 search。在根目录下逐行找一个关键词（字面量、不分大小写），每条命中写成「路径:行号: 这一行」，像 grep -rin。
// 只读、不出根目录，所以默认放行（permissions.ts 的默认表）；要不要把结果交给模型、怎样脱敏，由第 8 天的 execTool 管。
import fs from 'node:fs';
import path from 'node:path';
import { permissionRoot, safePath } from './permissions.ts';
import { registerTool, stringArg } from './tools.ts';

const MAX_HITS = 50;               // 再多就该让模型换个更具体的词：50 行已经占满一个工具结果
const MAX_LINE_CHARS = 200;        // 压缩过的代码一行几万字：一条命中只留开头
const MAX_FILE_BYTES = 1 << 20;    // 超过 1 MiB 的多半是数据或打包产物，不看

export function registerSearchTool(): void {
    registerTool({
        name: 'search',
        description: `在项目里按关键词搜索文本（字面量，不区分大小写），返回 路径:行号: 内容，最多 ${MAX_HITS} 条；不进点目录和 node_modules`,
        parameters: {
            type: 'object',
            properties: {
                pattern: { type: 'string', description: '要找的关键词（普通文字，不是正则）' },
                path: { type: 'string', description: '只在这个子目录里找（相对根目录），默认整个项目' },
            },
            required: ['pattern'],
            additionalProperties: false,
        },
        run(args) {
            const pattern = stringArg(args, 'pattern');
            // path 先过第 8 天的 safePath：越界（含指向外面的符号链接）时抛出，execTool 把它变成一句结果
            const start = typeof args.path === 'string' && args.path ? safePath(args.path) : permissionRoot();
            const { hits, more } = searchFiles(permissionRoot(), start, pattern);
            if (hits.length === 0) return `没有找到「${pattern}」`;
            const tail = more ? `\n（只列出前 ${MAX_HITS} 条：换个更具体的词，或者用 path 缩小范围）` : '';
            return `找到 ${hits.length} 行：\n${hits.join('\n')}${tail}`;
        },
    });
}

/** 从 start 往下找，路径按名字排序，结果里的路径相对 root、用 / 分隔。找到第 MAX_HITS + 1 条就停：多的那一条只用来知道「还有」。 */
export function searchFiles(root: string, start: string, pattern: string): { hits: string[]; more: boolean } {
    const needle = pattern.toLowerCase();
    const hits: string[] = [];
    for (const file of listFiles(start)) {
        const text = readText(file);
        if (text === null) continue;
        const lines = text.split('\n');
        for (let i = 0; i < lines.length; i++) {
            if (!lines[i].toLowerCase().includes(needle)) continue;
            if (hits.length === MAX_HITS) return { hits, more: true };
            const rel = path.relative(root, file).split(path.sep).join('/');
            hits.push(`${rel}:${i + 1}: ${lines[i].trimEnd().slice(0, MAX_LINE_CHARS)}`);   // trimEnd 顺带去掉 CRLF 的 \r
        }
    }
    return { hits, more: false };
}

/**
 * 要搜的文件，按路径排序（结果每次一样）。名字以 . 开头的跳过（.git、.geekagent、.env），node_modules 也跳过：
 * 否则结果被依赖和缓存占满。withFileTypes 里符号链接既不是目录也不是文件，所以不跟：链接可能绕成圈，也可能指向根目录外面。
 */
function listFiles(start: string): string[] {
    if (fs.statSync(start).isFile()) return [start];
    const files: string[] = [];
    const entries = fs.readdirSync(start, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
        if (e.name.startsWith('.') || e.name === 'node_modules') continue;
        const full = path.join(start, e.name);
        if (e.isDirectory()) files.push(...listFiles(full));
        else if (e.isFile()) files.push(full);
    }
    return files;
}

/** 文件的文字；太大、读不了、含 NUL 字节（当二进制，和 grep -I 一样）的返回 null，跳过它而不是让整个搜索失败。 */
function readText(file: string): string | null {
    try {
        if (fs.statSync(file).size > MAX_FILE_BYTES) return null;
        const text = fs.readFileSync(file, 'utf8');
        return text.includes('\0') ? null : text;
    } catch {
        return null;
    }
}
