// Day 4：文件工具 ls / read / glob / write / patch。Day 8 起路径都限制在权限根目录之内。
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { parseEnv } from 'node:util';
import { DEFAULT_BASE_URL, keyHost } from './config.ts';
import { openRegularFile } from './regular-file.ts';
import { applyHunks, diff, type Hunk } from './diff.ts';
import { glob, GLOB_LIMIT } from './glob.ts';
import { authorize, permissionRoot, safeGlob, safePath } from './permissions.ts';
import { holdsSecrets } from './redact.ts';
import { redactFilePiece, safeCut, type LineState } from './redact-stream.ts';
import { MAX_OUTPUT_CHARS, registerTool, stringArg } from './tools.ts';
import { backup } from './undo.ts';

const schema = (properties: Record<string, unknown>, required: string[]) =>
    ({ type: 'object', properties, required, additionalProperties: false });

/**
 * write 和 patch 共用的写入流程：读旧内容 → 相同就不问、说没有写入 → 显示 diff 并确认 → 备份旧内容供 /undo → 建目录、写入。
 * 含密钥的文件改不成、内容相同时也先问（tellAfterAsking）。
 * Day 8：文件原来不存在时旧内容是 null（撤销时删除文件），和空文件 "" 区分开。
 */
async function writeWithConfirm(tool: string, file: string, next: (old: string) => string, done: string, cancelled: string): Promise<string> {
    const abs = writable(safePath(file));
    let old: string | null = null;
    try {
        old = fs.readFileSync(abs, 'utf8');
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const secret = old !== null && holdsSecrets(old);
    let content: string;
    try {
        content = next(old ?? '');
    } catch (e) {
        if (secret) return tellAfterAsking(tool, file, abs, e as Error, cancelled);
        throw e;
    }
    if (content === old) return secret ? tellAfterAsking(tool, file, abs, null, cancelled) : unchanged(file);
    const question = `\n${diff(old ?? '', content)}\n确认写入 ${abs}？${ownConfigNote(abs)}${keyNote(abs, old ?? '', content)}`;
    if (!(await authorize(tool, question))) return cancelled;
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
            try {
                return pageOf(safePath(file), args.offset);
            } catch (e) {
                return `读取文件失败：${(e as Error).message}`;
            }
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

// —— 加固：含密钥的文件不当神谕、长文件分页、只读要返回的那一页、不读不写特殊文件、写 Agent 自己的配置时说一声 ——

/**
 * 含密钥的文件（holdsSecrets）改不成、或者新内容和现在的相同：这个结果是从文件内容算出来的，问过才告诉模型。不问就说的话，
 * old == new 的 patch 猜对一行 .env 答「相同」、猜错答「没有找到片段」，几百次调用就把密码一位位猜出来；write 原样的内容
 * 答「没有写入」，就是整个文件猜得对不对的神谕。问题里说出结果（内容相同、哪个片段没找到）；不同意时模型收到的和拒绝一次真正的
 * 修改一字不差。别的文件照旧不问、直接说为什么没改成（第 4 天）
 */
async function tellAfterAsking(tool: string, file: string, abs: string, failure: Error | null, cancelled: string): Promise<string> {
    const what = failure ? `这次改不成：${failure.message}` : '新内容和现在的内容相同，不会改动';
    const prompt = `\n${abs} 里有密钥，${what}。\n这个结果是从文件内容算出来的，不同意时模型只收到「${cancelled}」。告诉模型这个结果？`;
    if (!(await authorize(tool, prompt))) return cancelled;
    if (failure) throw failure;
    return unchanged(file);
}

const unchanged = (file: string) => `${file} 的内容本来就是这样，没有写入`;

/**
 * read 的一页：从 offset 起最多 MAX_OUTPUT_CHARS 个字符，说明总长和下一页从哪里继续。一块一块地读（charWindow），读过这一页、
 * 也读满 1 MiB 就停；内存里只有这一页和正在读的一块（加脱敏留的几段余量，见 redact-stream.ts），有没有换行都一样：
 * 几十 MB、没有一个换行的文件读第一页也只多占几百 KB。
 * 一页都在同一行里、这一行过了页末还没完时说一声：模型看得出这不是一行的全部。
 * 命名管道、设备、套接字不读（openRegularFile）：读它们会一直等下去，或者永远读不完
 */
function pageOf(file: string, from: unknown): string {
    const offset = Math.max(0, Math.floor(Number(from) || 0));
    const fd = openRegularFile(file);
    try {
        const { text, total } = charWindow(fd, offset, offset + MAX_OUTPUT_CHARS + 1);   // 多要一个字符：看得出后面还有没有
        if (total !== undefined && offset >= total && total > 0) return 'offset 已经超出文件末尾';
        const page = text.slice(0, MAX_OUTPUT_CHARS);
        const end = offset + page.length;
        const size = total === undefined ? `文件有 ${fs.fstatSync(fd).size} 字节，没读到末尾、不知道共多少个字符` : `文件共 ${total} 个字符`;
        let result = `（${size}，本次读取 ${offset}-${end}）\n${page}`;
        if (text.length > MAX_OUTPUT_CHARS) {
            const longLine = !page.includes('\n') && text[MAX_OUTPUT_CHARS] !== '\n' ? '这一页都在同一行里，这一行比一页还长，到页末还没完；' : '';
            result += `\n${longLine}还有更多内容；用 offset=${end} 继续调用 read`;
        }
        return result;
    } finally {
        fs.closeSync(fd);
    }
}

const CHUNK_BYTES = 64 * 1024;
// 不超过 1 MiB 的文件读到末尾、数出总字符数（只多花时间，内存里照样只留这一页）；更大的读到这一页为止
const COUNT_ALL_BYTES = 1024 * 1024;

/**
 * 脱敏之后的文件内容的第 start 到 end 个字符（不含 end）；读到了文件末尾时 total 是总字符数。
 * Day 8：先脱敏、再切出这一页，offset 和页边界都不会把密钥切成认不出的半截。边读边脱敏：safeCut 说前面哪一段可以先脱敏
 * （它只留几段比最长密钥还长的余量，一行再长也往前切），redactFilePiece 脱敏这一段（像 .env 的行逐行换掉，值跨过切点的
 * 接着换到行尾）。offset 数的是脱敏之后的字符，和一次读完整个文件再脱敏时一样
 */
function charWindow(fd: number, start: number, end: number): { text: string; total?: number } {
    const decoder = new StringDecoder('utf8');   // 一个汉字的几个字节分在两块里也解得对
    const chunk = Buffer.alloc(CHUNK_BYTES);
    let pending = '';   // 读到了、还没脱敏的原文
    let state: LineState = 'start';   // 上一段停在哪里（行首、一行的中间）
    let text = '';
    let bytes = 0;
    let pos = 0;        // 已经脱敏的字符数
    for (;;) {
        const got = fs.readSync(fd, chunk, 0, chunk.length, null);
        pending += got ? decoder.write(chunk.subarray(0, got)) : decoder.end();
        const cut = got ? safeCut(pending) : pending.length;
        const next = redactFilePiece(pending.slice(0, cut), state);
        pending = pending.slice(cut);
        state = next.state;
        text += next.piece.slice(Math.max(0, start - pos), Math.max(0, end - pos));
        pos += next.piece.length;
        bytes += got;
        if (!got) return { text, total: pos };
        if (pos >= end && bytes >= COUNT_ALL_BYTES) return { text };
    }
}

// 写入之前看清要写的是什么。硬链接（nlink > 1）的文件和别处的某个文件是同一份内容：经它写入会改到根目录之外、
// 确认时看不出来的地方，所以拒绝；不是普通文件的（命名管道、设备）读旧内容就会卡住，也拒绝。还不存在的文件照常新建。
// 局限：确认之后、写入之前才建的硬链接挡不住（那要别的程序在这几秒里动手）
function writable(file: string): string {
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st && !st.isFile()) throw new Error(`拒绝写入 ${file}：不是普通文件（是目录、命名管道、设备或套接字）`);
    if (st && st.nlink > 1) {
        throw new Error(`拒绝写入 ${file}：它有 ${st.nlink} 个硬链接，和别处的文件是同一份内容，写它会一起改掉那些地方（可能在根目录之外）。`
            + '提示：要改它，先复制一份再换回来（cp 文件 副本 && mv 副本 文件），断开硬链接');
    }
    return file;
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

// 写的是当前文件夹的 .env、又改了 OPENAI_BASE_URL：问题里说出密钥的新去处（经符号链接写过去也认得出）。一行地址在 diff 里不起眼，
// 答了 y，下次启动密钥和每条消息就发往那里；那时信任问题还会再问一次（地址算在 trust.ts 的指纹里）。真实环境变量优先时它不生效，照样提醒
function keyNote(file: string, old: string, content: string): string {
    const url = (text: string) => parseEnv(text).OPENAI_BASE_URL || DEFAULT_BASE_URL;
    if (realPath(file) !== path.join(realPath(process.cwd()), '.env') || url(old) === url(content)) return '';
    return `（密钥将发往 ${keyHost({ baseUrl: url(content) })}，下次启动生效）`;
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
