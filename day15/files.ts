// Day 4：文件工具 ls / read / glob / write / patch。Day 8 起路径都限制在权限根目录之内。
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyHunks, diff, type Hunk } from './diff.js';
import { glob, GLOB_LIMIT } from './glob.js';
import { authorize, permissionRoot, safeGlob, safePath } from './permissions.js';
import { redact } from './redact.js';
import { MAX_OUTPUT_CHARS, registerTool, stringArg } from './tools.js';
import { backup } from './undo.js';

const schema = (properties: Record<string, unknown>, required: string[]) =>
    ({ type: 'object', properties, required, additionalProperties: false });

/**
 * write 和 patch 共用的写入流程：读旧内容 → 相同就直接成功 → 显示 diff 并确认 → 备份旧内容供 /undo → 建目录、写入。
 * Day 8：文件原来不存在时旧内容是 null（撤销时删除文件），和空文件 "" 区分开。
 */
async function writeWithConfirm(tool: string, file: string, next: (old: string) => string, done: string, cancelled: string): Promise<string> {
    const abs = safePath(file);
    let old: string | null = null;
    try {
        old = fs.readFileSync(abs, 'utf8');
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const content = next(old ?? '');
    if (content === old) return done;
    if (!(await authorize(tool, `\n${diff(old ?? '', content)}\n确认写入 ${abs}？${ownConfigNote(abs)}`))) return cancelled;
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
                entries = fs.readdirSync(safePath(dir), { withFileTypes: true });
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
                text = fs.readFileSync(safePath(file), 'utf8');
            } catch (e) {
                return `读取文件失败：${(e as Error).message}`;
            }
            return page(text, args.offset);
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
        authorizes: true,   // Day 8：带着 diff 自己调用 authorize
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
        authorizes: true,   // Day 8：带着 diff 自己调用 authorize
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

// —— 加固：长文件分页、写 Agent 自己的配置时说一声 ——

/** read 的一页：从 offset 起最多 MAX_OUTPUT_CHARS 个字符，说明总长和下一页从哪里继续。 */
function page(text: string, from: unknown): string {
    text = redact(text);   // Day 8：先脱敏整个文件再分页：offset 和页边界都不会把密钥切成认不出的半截
    const offset = Math.max(0, Math.floor(Number(from) || 0));
    if (offset >= text.length && text.length > 0) return 'offset 已经超出文件末尾';
    const end = Math.min(text.length, offset + MAX_OUTPUT_CHARS);
    let result = `（文件共 ${text.length} 个字符，本次读取 ${offset}-${end}）\n${text.slice(offset, end)}`;
    if (end < text.length) result += `\n还有更多内容；用 offset=${end} 继续调用 read`;
    return result;
}

// 写的是 Agent 自己的配置（当前文件夹的 .env、.geekagent/ 下的文件、主目录的 ~/.geekagent/）时在问题里说出来：一行 diff
// 看不出这个文件管着密钥发往哪里、哪些工具不经询问就执行；改动下次启动才生效，那时未必还会再问。按真实路径比较，
// 经符号链接写过去也认得出
function ownConfigNote(file: string): string {
    const target = realPath(file);
    const here = realPath(process.cwd());
    const dirs = [path.join(here, '.geekagent'), path.join(realPath(os.homedir()), '.geekagent')];
    const own = target === path.join(here, '.env') || dirs.some((dir) => target.startsWith(dir + path.sep));
    return own ? '（这是 Agent 自己的配置，下次启动生效）' : '';
}

// 真实路径；还不存在的部分接在最近一级存在的目录的真实路径后面
function realPath(p: string): string {
    try {
        return fs.realpathSync(p);
    } catch {
        const parent = path.dirname(p);
        return parent === p ? p : path.join(realPath(parent), path.basename(p));
    }
}
