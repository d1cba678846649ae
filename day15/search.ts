// Day 12：代码搜索（search 工具的核心）：在目录树里做不区分大小写的字面量搜索，类似 grep -rin。
// 只负责“找”：路径是否越界、要不要询问用户，由调用方（工具注册处）先处理好。
// 为什么同步：整棵树一次扫完，同步读文件比成千上万个 Promise 快得多；代价是扫描期间界面不刷新。
import fs from 'node:fs';
import path from 'node:path';

export const MAX_HITS = 50;
export const MAX_FILE_BYTES = 1024 * 1024;   // 超过 1 MiB 的多半是数据或打包产物，跳过

/**
 * 在 root/sub 下搜索 pattern，返回给模型看的文本。
 * sub 可以是相对 root 的路径、绝对路径或空串（= root）；结果里的路径一律相对 root、用 `/` 分隔。
 */
export function searchFiles(root: string, sub: string, pattern: string): string {
    if (!pattern) return '缺少参数：pattern';
    try {
        const { hits, more } = findMatches(root, sub, pattern);
        if (hits.length === 0) return `没有找到 "${pattern}" 的匹配` + (sub ? `（在 ${sub} 下）` : '');
        const lines = [`匹配 "${pattern}" 共 ${hits.length} 行：`, ...hits];
        if (more) lines.push(`…（已达上限 ${MAX_HITS} 行，还有更多匹配；请换更具体的关键词或缩小 path）`);
        return lines.join('\n');
    } catch (e) {
        return `搜索失败：${e instanceof Error ? e.message : String(e)}`;
    }
}

export interface Matches {
    hits: string[];    // `相对路径:行号: 行内容`
    more: boolean;     // 第 MAX_HITS + 1 条也找到了，说明结果被截断
}

/** 按路径排序逐个文件搜索，找到 MAX_HITS + 1 条就停（多出的一条只用来判断“还有更多”）。 */
export function findMatches(root: string, sub: string, pattern: string): Matches {
    const base = path.resolve(root, sub || '.');
    const files: string[] = [];
    if (fs.statSync(base).isFile()) files.push(base);
    else listFiles(base, files, true);
    const entries = files.map((full) => ({ full, rel: path.relative(root, full).split(path.sep).join('/') }));
    entries.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));

    const matcher = makeMatcher(pattern);
    const hits: string[] = [];
    for (const { full, rel } of entries) {
        const buf = readSmallFile(full);
        // 含 NUL 字节的当二进制文件跳过（和 grep -I 的思路一样）
        if (!buf || buf.indexOf(0) >= 0) continue;
        for (const hit of matcher(buf)) {
            hits.push(`${rel}:${hit.line}: ${hit.text}`);
            if (hits.length > MAX_HITS) return { hits: hits.slice(0, MAX_HITS), more: true };
        }
    }
    return { hits, more: false };
}

/**
 * 收集普通文件。跳过以 `.` 开头的名字和 node_modules；符号链接一律不跟（指向目录可能成环，
 * 指向文件可能跑出根目录）。起点目录本身不受这条规则限制：用户明确要搜 `.github` 也可以。
 * 子目录读不了（权限不足等）就跳过，和 grep 一样，不因一个目录读不了就整体失败。
 */
function listFiles(dir: string, out: string[], isStart = false): void {
    let entries: fs.Dirent[];
    try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (e) {
        if (isStart) throw e;
        return;
    }
    for (const ent of entries) {
        if (ent.name.startsWith('.') || ent.name === 'node_modules') continue;
        const full = path.join(dir, ent.name);
        if (ent.isDirectory()) listFiles(full, out);
        else if (ent.isFile()) out.push(full);
    }
}

// 所有文件共用一块读缓冲：几万次小分配会让垃圾回收占掉可观的时间。
// 代价是返回的 Buffer 只在读下一个文件之前有效——调用方处理完一个文件才读下一个，正好满足。
const readBuffer = Buffer.allocUnsafe(MAX_FILE_BYTES);

/** 读不超过 MAX_FILE_BYTES 的文件；太大或读失败返回 null。先 fstat 再读，大文件一个字节都不读。 */
function readSmallFile(file: string): Buffer | null {
    let fd: number;
    try {
        fd = fs.openSync(file, 'r');
    } catch {
        return null;
    }
    try {
        const size = fs.fstatSync(fd).size;
        if (size > MAX_FILE_BYTES) return null;
        let got = 0;
        while (got < size) {
            const n = fs.readSync(fd, readBuffer, got, size - got, got);
            if (n === 0) break;
            got += n;
        }
        return readBuffer.subarray(0, got);
    } catch {
        return null;
    } finally {
        fs.closeSync(fd);
    }
}

interface LineHit {
    line: number;   // 从 1 开始
    text: string;   // 去掉行尾空白（含 \r）
}

type Matcher = (buf: Buffer) => Iterable<LineHit>;

/**
 * 按关键词挑一种匹配方式，语义都是“这一行小写后包含小写的关键词”，只是快慢不同：
 * - 关键词里没有大小写之分（数字、中文、符号）：直接在字节里找 UTF-8 编码，最快；
 * - 关键词是 ASCII：把文件按 latin1 解成字符串再整体小写——每个字节对应一个字符，
 *   下标就是字节偏移，只有命中的行才按 UTF-8 解码。局限：'K'（开尔文符号）这类
 *   小写后变成 ASCII 的非 ASCII 字符匹配不到，实际代码里几乎见不到；
 * - 其余（如 "Straße"、"Äpfel"）：逐行解码再 toLowerCase，慢但准确。
 */
function makeMatcher(pattern: string): Matcher {
    const needle = pattern.toLowerCase();
    if (needle.includes('\n')) return () => [];     // 按行匹配，跨行的关键词不可能命中
    if (needle === needle.toUpperCase()) {
        const bytes = Buffer.from(needle, 'utf8');
        return (buf) => byteHits(buf, (from) => buf.indexOf(bytes, from));
    }
    if (/^[\x00-\x7f]*$/.test(needle)) {
        return (buf) => {
            const lower = buf.toString('latin1').toLowerCase();
            return byteHits(buf, (from) => lower.indexOf(needle, from));
        };
    }
    return (buf) => {
        const hits: LineHit[] = [];
        buf.toString('utf8').split('\n').forEach((text, i) => {
            if (text.toLowerCase().includes(needle)) hits.push({ line: i + 1, text: text.trimEnd() });
        });
        return hits;
    };
}

/** find(from) 返回下一个命中的字节偏移；每行只报一次，行号靠数换行符得到。 */
function* byteHits(buf: Buffer, find: (from: number) => number): Generator<LineHit> {
    let line = 1;
    let lineStart = 0;
    for (let at = find(0); at >= 0; ) {
        for (let i = lineStart; i < at; i++) {
            if (buf[i] === 10) {
                line++;
                lineStart = i + 1;
            }
        }
        let lineEnd = buf.indexOf(10, at);
        if (lineEnd < 0) lineEnd = buf.length;
        yield { line, text: buf.toString('utf8', lineStart, lineEnd).trimEnd() };
        if (lineEnd >= buf.length) return;
        line++;
        lineStart = lineEnd + 1;
        at = find(lineStart);
    }
}
