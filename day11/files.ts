// Day 4：文件工具 ls / read / glob / write / patch。Day 8 起路径都限制在权限根目录之内。
import fs from 'node:fs';
import path from 'node:path';
import { applyHunks, diff, type Hunk } from './diff.js';
import { glob, GLOB_LIMIT } from './glob.js';
import { authorize, permissionRoot, safeGlob, safePath } from './permissions.js';
import { redact } from './redact.js';
import { MAX_OUTPUT_CHARS, registerTool, stringArg } from './tools.js';
import { backup } from './undo.js';

const resolvePath = safePath;

const schema = (properties: Record<string, unknown>, required: string[]) =>
    ({ type: 'object', properties, required, additionalProperties: false });

/**
 * write 和 patch 共用的写入流程：读旧内容 → 相同就直接成功 → 显示 diff 并确认 → 备份旧内容供 /undo → 建目录、写入。
 * Day 8：文件原来不存在时旧内容是 null（撤销时删除文件），和空文件 "" 区分开。
 */
async function writeWithConfirm(tool: string, file: string, next: (old: string) => string, done: string, cancelled: string): Promise<string> {
    const abs = resolvePath(file);
    let old: string | null = null;
    try {
        old = fs.readFileSync(abs, 'utf8');
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const content = next(old ?? '');
    if (content === old) return done;
    if (!(await authorize(tool, `\n${diff(old ?? '', content)}\n确认写入 ${abs}？`))) return cancelled;
    backup(abs, old);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content, 'utf8');
    return done;
}

export function registerFileTools(): void {
    registerTool({
        name: 'ls',
        description: '列出目录内容（目录在前，以 / 结尾）',
        parameters: schema({ path: { type: 'string', description: '目录路径，默认当前目录' } }, []),
        run(args) {
            const dir = typeof args.path === 'string' && args.path ? args.path : '.';
            let entries: fs.Dirent[];
            try {
                entries = fs.readdirSync(resolvePath(dir), { withFileTypes: true });
            } catch (e) {
                return `打开目录失败：${(e as Error).message}`;
            }
            if (entries.length === 0) return '（空目录）';
            const names = (dirs: boolean) => entries
                .filter((e) => e.isDirectory() === dirs)
                .map((e) => e.name + (dirs ? '/' : ''))
                .sort((a, b) => a.localeCompare(b));
            return `共 ${entries.length} 项：\n${[...names(true), ...names(false)].join('\n')}`;
        },
    });

    registerTool({
        name: 'read',
        description: `读取文本文件，每次最多 ${MAX_OUTPUT_CHARS} 个字符；长文件用 offset 分段继续读`,
        parameters: schema({
            path: { type: 'string', description: '文件路径' },
            offset: { type: 'number', description: '从第几个字符开始读，默认 0' },
        }, ['path']),
        run(args) {
            const file = stringArg(args, 'path');
            let text: string;
            try {
                // 先脱敏整个文件再分页：offset 和页边界都不会把密钥切成认不出的半截
                text = redact(fs.readFileSync(resolvePath(file), 'utf8'));
            } catch (e) {
                return `读取文件失败：${(e as Error).message}`;
            }
            const offset = Math.max(0, Math.floor(Number(args.offset) || 0));
            if (offset >= text.length && text.length > 0) return 'offset 已经超出文件末尾';
            const end = Math.min(text.length, offset + MAX_OUTPUT_CHARS);
            let result = `（文件共 ${text.length} 个字符，本次读取 ${offset}-${end}）\n${text.slice(offset, end)}`;
            if (end < text.length) result += `\n还有更多内容；用 offset=${end} 继续调用 read`;
            return result;
        },
    });

    registerTool({
        name: 'glob',
        description: '按通配符查找文件，如 **/*.ts、src/*.{js,ts}；不进入点目录和 node_modules',
        parameters: schema({ pattern: { type: 'string', description: 'glob 模式' } }, ['pattern']),
        run(args) {
            const pattern = stringArg(args, 'pattern');
            try {
                safeGlob(pattern);
                const { paths, truncated } = glob(pattern, permissionRoot());
                if (paths.length === 0) return '（没有匹配的文件）';
                const more = truncated ? `\n（结果超过 ${GLOB_LIMIT} 个，只显示前 ${GLOB_LIMIT} 个；请缩小模式）` : '';
                return `匹配到 ${paths.length} 个文件：\n${paths.join('\n')}${more}`;
            } catch (e) {
                return `glob 失败：${(e as Error).message}`;
            }
        },
    });

    registerTool({
        name: 'write',
        authorizes: true,
        description: '把完整内容写入文件（覆盖；会先显示 diff 请用户确认；自动创建父目录）',
        parameters: schema({
            path: { type: 'string', description: '文件路径' },
            content: { type: 'string', description: '文件的完整新内容' },
        }, ['path', 'content']),
        run(args) {
            const file = stringArg(args, 'path');
            if (typeof args.content !== 'string') throw new Error('缺少参数：content');
            const content = args.content;
            return writeWithConfirm('write', file, () => content, `已写入 ${file}`, '已取消写入');
        },
    });

    registerTool({
        name: 'patch',
        authorizes: true,
        description: '按片段修改文件：每个 hunk 的 old 必须在文件中恰好出现一次，依次替换为 new（会先显示 diff 请用户确认）',
        parameters: schema({
            path: { type: 'string', description: '文件路径' },
            hunks: {
                type: 'array',
                description: '要做的替换，按顺序应用',
                items: schema({
                    old: { type: 'string', description: '原文片段（精确匹配，含空白）' },
                    new: { type: 'string', description: '替换后的片段' },
                }, ['old', 'new']),
            },
        }, ['path', 'hunks']),
        run(args) {
            const file = stringArg(args, 'path');
            const hunks = args.hunks as Hunk[];
            return writeWithConfirm('patch', file, (old) => applyHunks(old, hunks), `已对 ${file} 应用 ${Array.isArray(hunks) ? hunks.length : 0} 处修改`, '已取消修改');
        },
    });
}
