// Day 6：状态文件（对话存档，第 8 天的撤销记录、信任记录）的读写。读的结果分三种：不存在、读到了、读不出来。
// 不存在是正常的（还没保存过）；读不出来的文件绝不能当成空的——当成空的，下次保存就把它连同里面的一切覆盖掉了。
import fs from 'node:fs';
import path from 'node:path';

export type Loaded = { state: 'missing' } | { state: 'ok'; data: unknown } | { state: 'error'; message: string };

export function loadJson(file: string): Loaded {
    let text: string;
    try {
        text = fs.readFileSync(file, 'utf8');
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
        return { state: 'error', message: `读不了 ${file}：${(e as Error).message}` };
    }
    try {
        return { state: 'ok', data: JSON.parse(text) };
    } catch (e) {
        const [line, column] = position(text, (e as Error).message);
        const why = (e as Error).message.replace(/, ".*" is not valid JSON$/s, '');   // 这种写法会把整段原文抄进来：去掉
        return {
            state: 'error',
            message: `${file}:${line}:${column}：JSON 写坏了（${why}）\n`
                + '提示：照这个位置改好它；或者把它移走（改个名），Agent 就当它不存在、从头开始。文件没有被改动',
        };
    }
}

/**
 * 先写同一目录里的临时文件，再改名成正式的名字：改名是原子的，写到一半崩溃也不会留下半个 JSON，旧文件要么原样、要么整份换新。
 * 只有自己能读写（0600）：对话、撤销记录里可能有你的私事。
 */
export function writeJsonAtomic(file: string, data: unknown): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, file);
}

/** JSON.parse 只说字符偏移（at position 88），有的写法（Unexpected token）连偏移都不说：换成编辑器里能跳过去的 行、列。 */
function position(text: string, message: string): [number, number] {
    const at = /at position (\d+)/.exec(message);
    const before = text.slice(0, at ? Number(at[1]) : firstBad(text)).split('\n');
    return [before.length, before.at(-1)!.length + 1];
}

// 没说偏移时：找最短的「还没结束就已经错了」的开头一段，它的最后一个字符就是错处。开头一段越长，只会从「没写完」
// 变成「错了」，不会变回去，所以可以二分
function firstBad(text: string): number {
    let low = 1;
    let high = text.length;
    while (low < high) {
        const mid = (low + high) >> 1;
        if (wrongBefore(text.slice(0, mid))) high = mid;
        else low = mid + 1;
    }
    return low - 1;
}

function wrongBefore(prefix: string): boolean {
    try {
        JSON.parse(prefix);
        return false;
    } catch (e) {
        const at = /at position (\d+)/.exec((e as Error).message);
        return at ? Number(at[1]) < prefix.length : !/end of JSON input/.test((e as Error).message);
    }
}
