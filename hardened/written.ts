// —— 加固：文件夹里的状态文件要是你的 Agent 写的才算数 ——
// Day 8：记下哪些状态文件是这个用户的 Agent 写的。克隆来的仓库可以自带 .geekagent/ 里的状态文件：一份 undo.json，
// /undo 就会把它写的内容「恢复」进你的文件；一份对话存档，/load 就把别人编好的对话当成你的（之后的阶段还有记忆、知识库，会放进系统提示）。
// 所以 Agent 每写一个状态文件，就把内容的 sha256 记在主目录的 written.json 里（键是文件的绝对路径）；读的时候内容的摘要
// 不在记录里，这个文件就不是这个用户的 Agent 写的：不用它，也不覆盖它（读不出来的文件不能当成空的，同一个道理），说一次怎么办。
// 摘要按 JSON.stringify(数据) 算，和缩进无关；记录里任何一项对得上都算（sessions 另存的文件改名成 sessions.json 照样能载入）。
// 局限：两个 Agent 同时写记录，后写的会盖掉先写的那一项，那个文件下次就被当成外来的；更新到这一版之前写的状态文件也一样
// ——删掉它（或移走）即可，Agent 从头开始。
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { isObject, type Json } from './json.ts';
import { loadJson, writeJsonAtomic, type Loaded } from './storage.ts';
import { currentFolder } from './trust.ts';

export const WRITTEN_FILE = path.join(os.homedir(), '.geekagent', 'written.json');

/** 读一个状态文件（相对路径）：不是这个用户的 Agent 写的，就当它不存在，并说一次。读不出来的照旧报错。 */
export function loadOwnJson<T = unknown>(file: string): Loaded<T> {
    const loaded = loadJson<T>(file);
    if (loaded.state !== 'ok') return loaded;
    const record = writtenRecord();
    if (record instanceof Error) return { state: 'error', message: record.message };
    if (Object.values(record).includes(digest(loaded.data))) return loaded;
    tellOnce(file);
    return { state: 'missing' };
}

/** 写一个状态文件并记下它的摘要。文件已经在、却不是这个用户的 Agent 写的：不覆盖，抛出（说怎么办）。 */
export function writeOwnJson(file: string, data: unknown): void {
    const record = writtenRecord();
    if (record instanceof Error) throw record;
    const old = loadJson(file);
    if (old.state === 'ok' && !Object.values(record).includes(digest(old.data))) throw new Error(`没有覆盖 ${file}：它${FOREIGN}；${HINT}`);
    writeJsonAtomic(file, data);
    writeJsonAtomic(WRITTEN_FILE, { ...record, [path.join(currentFolder(), file)]: digest(data) });
}

/** 说明要显示在哪里：入口有了前端之后设置；之前（启动时读记忆、知识库）发现的先攒着，设置时一起显示。 */
export function setForeignNotice(show: (line: string) => void): void {
    notice = show;
    for (const line of pending.splice(0)) show(line);
}

let notice: ((line: string) => void) | null = null;
const pending: string[] = [];
const told = new Set<string>();

function tellOnce(file: string): void {
    if (told.has(file)) return;
    told.add(file);
    const line = `${file} ${FOREIGN}，这次不用它；${HINT}`;
    if (notice) notice(line);
    else pending.push(line);
}

const FOREIGN = '不是你的 Agent 写的（可能随仓库克隆而来）';
const HINT = '确认无害后删掉它即可，Agent 会从头写自己的';

function digest(data: unknown): string {
    return createHash('sha256').update(JSON.stringify(data)).digest('hex');
}

// 记录读不出来时不当成空的（那样你自己的状态文件全成了外来的），也不覆盖它：说清坏在哪、怎么办
function writtenRecord(): Json | Error {
    const loaded = loadJson(WRITTEN_FILE);
    if (loaded.state === 'missing') return {};
    if (loaded.state === 'ok' && isObject(loaded.data)) return loaded.data;
    const detail = loaded.state === 'error' ? `\n${loaded.message}` : '';
    return new Error(`状态文件的写入记录 ${WRITTEN_FILE} 读不出来，原样保留：修好或删掉它（删掉后 .geekagent/ 里现有的状态文件都算外来的）${detail}`);
}
