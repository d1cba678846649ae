// Day 6：状态文件的读写。写入是原子的（同目录临时文件 + rename），读取区分「不存在」「正常」「出错」。
import fs from 'node:fs';
import path from 'node:path';

export type Loaded<T> = { state: 'missing' } | { state: 'ok'; data: T } | { state: 'error'; message: string };

export function loadJson<T = unknown>(file: string): Loaded<T> {
    let text: string;
    try {
        text = fs.readFileSync(file, 'utf8');
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
        return { state: 'error', message: (e as Error).message };
    }
    try {
        return { state: 'ok', data: JSON.parse(text) as T };
    } catch (e) {
        return { state: 'error', message: (e as Error).message };
    }
}

/** 先写临时文件再 rename：写到一半崩溃也不会留下半个 JSON。 */
export function writeJsonAtomic(file: string, data: unknown): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
    try {
        fs.writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n', 'utf8');
        fs.renameSync(tmp, file);
    } catch (e) {
        fs.rmSync(tmp, { force: true });
        throw e;
    }
}
