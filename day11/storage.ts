// Day 6：状态文件的读写。读取分清「不存在」「正常」「出错」：读不出来的文件不能当成空的，否则下次保存就把它覆盖了。
import fs from 'node:fs';
import path from 'node:path';

export type Loaded<T> = { state: 'missing' } | { state: 'ok'; data: T } | { state: 'error'; message: string };

export function loadJson<T = unknown>(file: string): Loaded<T> {
    try {
        refuseSymlinks(file, '读取');   // Day 8
        return { state: 'ok', data: JSON.parse(fs.readFileSync(file, 'utf8')) as T };
    } catch (e) {
        return missingOrError(e);
    }
}

// —— 加固：读失败分成两种、原子写入、不经符号链接 ——

/** 文件在：读出来了，或者读的时候出错（检查文件内容的函数拿到的就是这两种）。 */
export type Present = Exclude<Loaded<unknown>, { state: 'missing' }>;

/** 文件不存在是正常情况（还没保存过）；别的错误（没权限、不是 JSON）原样报出来。 */
function missingOrError(e: unknown): Loaded<never> {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'error', message: (e as Error).message };
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
