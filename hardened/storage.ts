// Day 6：状态文件的读写。读取分清「不存在」「正常」「出错」：读不出来的文件不能当成空的，否则下次保存就把它覆盖了。
import fs from 'node:fs';
import path from 'node:path';
import { readRegularFile } from './regular-file.ts';

export type Loaded<T> = { state: 'missing' } | { state: 'ok'; data: T } | { state: 'error'; message: string };

export function loadJson<T = unknown>(file: string): Loaded<T> {
    let text = '';
    try {
        refuseSymlinks(file, '读取');   // Day 8
        text = readRegularFile(file, STATE_CAP);
        return { state: 'ok', data: JSON.parse(text) as T };
    } catch (e) {
        return missingOrError(e, file, text);
    }
}

// —— 加固：读失败分成两种、原子写入、不经符号链接 ——

// 状态文件（对话存档、知识库、撤销记录、权限、信任记录）的大小上限：64 MiB，远超正常用量；超过的、不是普通文件的
// 按读不了报告（readRegularFile），和写坏了的 JSON 一样不会被覆盖
const STATE_CAP = 64 * 1024 * 1024;

/** 文件在：读出来了，或者读的时候出错（检查文件内容的函数拿到的就是这两种）。 */
export type Present = Exclude<Loaded<unknown>, { state: 'missing' }>;

/** 文件不存在是正常情况（还没保存过）；别的错误原样报出来，不是 JSON 的说清坏在哪一行哪一列（brokenJson）。 */
function missingOrError(e: unknown, file: string, text: string): Loaded<never> {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'error', message: e instanceof SyntaxError ? brokenJson(file, text, e) : (e as Error).message };
}

/**
 * 先写同目录的临时文件再 rename：写到一半崩溃也不会留下半个 JSON。
 * Day 8：只有自己能读写（0600）：对话、撤销记录里可能有用户的私事，不比原文件的权限宽。
 */
export function writeJsonAtomic(file: string, data: unknown): void {
    refuseSymlinks(file, '写入');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
    try {
        fs.writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n', { encoding: 'utf8', mode: 0o600, flag: 'wx' });
        fs.renameSync(tmp, file);
    } catch (e) {
        fs.rmSync(tmp, { force: true });
        throw e;
    }
}

/**
 * Day 8：项目里的状态文件（相对路径，在 .geekagent/ 下）路径上的每一段都不能是符号链接：克隆来的仓库可以让
 * .geekagent 或其中的文件指向项目外面，读进来的会交给模型，写出去的会落到别处。主目录里的信任记录（绝对路径）是用户自己的，不查。
 */
function refuseSymlinks(file: string, verb: '读取' | '写入'): void {
    if (path.isAbsolute(file)) return;
    const parts = path.normalize(file).split(path.sep);
    for (let i = 1; i <= parts.length; i++) {
        const part = parts.slice(0, i).join('/');
        if (fs.lstatSync(part, { throwIfNoEntry: false })?.isSymbolicLink()) {
            throw new Error(`拒绝${verb} ${file}：${part} 是符号链接（Agent 的状态文件只用项目里的普通文件，链接可能指向项目之外）`);
        }
    }
}

// Day 8：改坏了的 JSON 文件（状态文件、之后的 mcp.json）都用这一处报告。JSON.parse 只说英文和字符偏移
// （at position 88），这里换成编辑器里能跳过去的 文件:行:列、中文原因和该怎么办；文件本身谁也不改写。
export function brokenJson(file: string, text: string, e: SyntaxError): string {
    const at = errorOffset(text, e.message);
    const lines = text.slice(0, at).split('\n');
    return `${file}:${lines.length}:${lines.at(-1)!.length + 1}：JSON 写坏了（${jsonReason(text, at, e.message)}）\n`
        + '提示：照这个位置改好 JSON；或者把文件移走（改个名），Agent 就当它不存在、从头开始。文件没有被改动';
}

// Node 20 的消息多半带 at position N；「Unexpected token」不带：错处是最短的「在中间就出错」（而不是「还没写完」）的前缀的最后一个字符。
// 解析从左往右，前缀越长只会从「没写完」变成「出错」，所以可以二分
function errorOffset(text: string, message: string): number {
    const at = /at position (\d+)/.exec(message);
    if (at) return Number(at[1]);
    if (/end of JSON input/.test(message)) return text.length;
    let low = 1;
    let high = text.length;
    while (low < high) {
        const mid = (low + high) >> 1;
        if (failsInside(text.slice(0, mid))) high = mid;
        else low = mid + 1;
    }
    return low - 1;
}

function failsInside(prefix: string): boolean {
    try {
        JSON.parse(prefix);
        return false;
    } catch (e) {
        const at = /at position (\d+)/.exec((e as Error).message);
        return at ? Number(at[1]) < prefix.length : !/end of JSON input/.test((e as Error).message);
    }
}

// 常见的几种写法错误用中文说；认不出的说这里多了哪个字符（看不见的字符写成 U+XXXX）
function jsonReason(text: string, at: number, message: string): string {
    const here = text.slice(at, at + 1);
    if (text.trim() === '') return '文件是空的';
    if (/Unterminated string/.test(message)) return '字符串缺右引号';
    if (at >= text.trimEnd().length) return '没写完就结束了，可能少了右括号 } 或 ]';
    if (/[}\]]/.test(here) && text.slice(0, at).trimEnd().endsWith(',')) return '最后一项后面多了逗号';
    if (/property name/.test(message)) return '这里应该是用双引号括起来的键名';
    if (/after (property value|array element)/.test(message)) return '两项之间少了逗号，或者括号没配对';
    if (/after JSON/.test(message) && here === ':' && text.trimStart().startsWith('"')) return '开头少了左括号 {';
    if (/after JSON/.test(message)) return 'JSON 已经完整结束，后面还有多余的内容';
    if (/control character/.test(message)) return '字符串里不能直接换行或放控制字符，换行要写成 \\n';
    if (/escape/i.test(message)) return '字符串里的反斜杠转义写错了，反斜杠本身要写成 \\\\';
    if (/number|minus|Exponent/i.test(message)) return '数字写错了';
    if (here === "'") return '字符串要用双引号，不能用单引号';
    const shown = /^[\p{L}\p{N}\p{P}\p{S}]$/u.test(here) ? here : `U+${here.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    return `这里不该出现「${shown}」`;
}
