// Day 4：文件工具 ls / read / glob / write / patch。路径都相对权限的根目录（第 8 天起；缺省就是当前目录），出不了根目录。
import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { DEFAULT_BASE_URL, keyHost } from './config.ts';
import { diff } from './diff.ts';
import { glob, GLOB_LIMIT } from './glob.ts';
import { permissionRoot, safePath } from './permissions.ts';   // Day 8：目录隔离
import { redact } from './redact.ts';
import { confirm, registerTool, stringArg } from './tools.ts';
import { backup } from './undo.ts';   // Day 8：撤销

const READ_CHARS = 1500;   // read 一页的字符数：加上首尾的说明，仍在一个工具结果的上限（MAX_OUTPUT_CHARS）之内

// 参数的 JSON Schema：一个对象，只有列出的属性
const schema = (properties: Record<string, unknown>, required: string[]) =>
    ({ type: 'object', properties, required, additionalProperties: false });
const text = (description: string) => ({ type: 'string', description });

export function registerFileTools(): void {
    registerTool({
        name: 'ls',
        description: '列出目录内容（目录在前，以 / 结尾）',
        parameters: schema({ path: text('目录路径，默认当前目录') }, []),
        run(args) {
            const entries = fs.readdirSync(safePath(typeof args.path === 'string' && args.path ? args.path : '.'), { withFileTypes: true });
            const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
            names.sort((a, b) => Number(b.endsWith('/')) - Number(a.endsWith('/')) || a.localeCompare(b));
            return names.length ? names.join('\n') : '（空目录）';
        },
    });
    registerTool({
        name: 'read',
        description: `读取文本文件，每次最多 ${READ_CHARS} 个字符；长文件用 offset 接着读`,
        parameters: schema({ path: text('文件路径'), offset: { type: 'number', description: '从第几个字符开始读，默认 0' } }, ['path']),
        run(args) {
            // 一次只交一页：一个大文件不会一下子塞满模型的上下文，模型需要时自己接着读
            // Day 8：先脱敏整个文件再分页：切在页边上的密钥，两半各自都认不出来
            const content = redact(fs.readFileSync(safePath(stringArg(args, 'path')), 'utf8'));
            const offset = Math.max(0, Math.floor(Number(args.offset) || 0));
            const end = Math.min(content.length, offset + READ_CHARS);
            const more = end < content.length ? `\n（还没读完：用 offset=${end} 接着读）` : '';
            return `（文件共 ${content.length} 个字符，这次读了 ${offset}-${end}）\n${content.slice(offset, end)}${more}`;
        },
    });
    registerTool({
        name: 'glob',
        description: '按通配符查找文件，如 **/*.ts、src/*.{js,ts}；不进入点目录和 node_modules',
        parameters: schema({ pattern: text('glob 模式') }, ['pattern']),
        run(args) {
            const found = glob(stringArg(args, 'pattern'), permissionRoot());
            const more = found.length >= GLOB_LIMIT ? `\n（只列出前 ${GLOB_LIMIT} 个：请缩小模式）` : '';
            return found.length ? `${found.join('\n')}${more}` : '（没有匹配的文件）';
        },
    });
    registerTool({
        name: 'write',
        description: '把完整内容写入文件（覆盖；会先显示 diff 请用户确认；自动创建父目录）',
        parameters: schema({ path: text('文件路径'), content: text('文件的完整新内容') }, ['path', 'content']),
        run(args) {
            const content = args.content;
            if (typeof content !== 'string') throw new Error('缺少参数：content');
            return writeWithConfirm(stringArg(args, 'path'), () => content);
        },
    });
    registerTool({
        name: 'patch',
        description: '按片段修改文件：每个 hunk 的 old 必须在文件里恰好出现一次，依次换成 new（会先显示 diff 请用户确认）',
        parameters: schema({
            path: text('文件路径'),
            hunks: {
                type: 'array',
                description: '按顺序应用的替换',
                items: schema({ old: text('原文片段（精确匹配，含空白）'), new: text('换成的片段') }, ['old', 'new']),
            },
        }, ['path', 'hunks']),
        run(args) {
            return writeWithConfirm(stringArg(args, 'path'), (old) => applyHunks(old, args.hunks));
        },
    });
}

/** write 和 patch 共用：读旧内容 → 算出新内容 → 没有变化就不问 → 显示 diff 并确认 → 建好父目录再写。 */
async function writeWithConfirm(file: string, next: (old: string) => string): Promise<string> {
    const abs = safePath(file);   // 要确认的是「写到哪里」：问题里用绝对路径，不容易看错。Day 8：越界的路径在这里就抛错，不会问你
    const exists = fs.existsSync(abs);
    const old = exists ? fs.readFileSync(abs, 'utf8') : '';
    const content = next(old);
    if (exists && content === old) return `${file} 的内容本来就是这样，没有写入`;
    // diff 一行也不截：答 y 之前，要改的每一行都看得到
    if (!(await confirm(`${diff(old, content)}\n确认写入 ${abs}？${keyNote(abs, old, content)}`))) return '已取消写入';
    backup(abs, exists ? old : null);   // Day 8：先记下旧内容，/undo 用
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
    return `已写入 ${file}`;
}

/**
 * 要写的是启动时读的那个 .env（config.ts），又改了 OPENAI_BASE_URL：问题里说出密钥的新去处。diff 里一行地址看着不起眼，
 * 答了 y，下次启动密钥和每条消息就发往那里（第 8 天起信任问题会再问一次）。经符号链接写过去也认得出。
 * 局限：真实环境变量优先时（第 1 天的规则）这一行其实不生效，照样提醒。
 */
function keyNote(abs: string, old: string, content: string): string {
    const real = (p: string) => (fs.existsSync(p) ? fs.realpathSync(p) : p);
    const url = (text: string) => parseEnv(text).OPENAI_BASE_URL || DEFAULT_BASE_URL;
    if (real(abs) !== real(path.resolve('.env')) || url(old) === url(content)) return '';
    return `（密钥将发往 ${keyHost({ baseUrl: url(content) })}，下次启动生效）`;
}

/** patch 的规则：每个 old 必须恰好出现一次，否则一个字都不改，原因交给模型（它会把 old 写长一点再试）。几个 hunk 依次作用。 */
function applyHunks(original: string, hunks: unknown): string {
    if (!Array.isArray(hunks) || hunks.length === 0) throw new Error('hunks 为空，没有做任何修改');
    let work = original;
    for (const h of hunks) {
        if (typeof h?.old !== 'string' || h.old === '' || typeof h.new !== 'string') throw new Error('每个 hunk 都要有非空的 old 和字符串 new');
        const at = work.indexOf(h.old);
        if (at === -1) throw new Error(`没有找到片段：${h.old.slice(0, 80)}`);
        if (work.indexOf(h.old, at + 1) !== -1) throw new Error(`片段出现了不止一次，请把 old 写长一点：${h.old.slice(0, 80)}`);
        // 用 slice 拼接而不是 String.replace：新文字里的 $& 不会被当成特殊写法
        work = work.slice(0, at) + h.new + work.slice(at + h.old.length);
    }
    return work;
}
