// Day 8：撤销。write / patch 真正写入之前，把旧内容（原来没有这个文件就记 null）存进 .geekagent/undo.json，
// /undo 把它写回去（null 就删掉文件）。记录在磁盘上，重启之后也能撤销；只记最近一次。
import fs from 'node:fs';
import path from 'node:path';
import { permissionRoot, safePath } from './permissions.ts';
import { redact } from './redact.ts';
import { loadJson, writeJsonAtomic } from './storage.ts';

export const UNDO_FILE = '.geekagent/undo.json';

interface UndoRecord {
    path: string;               // 相对根目录
    content?: string | null;    // 旧内容；null：写入之前没有这个文件
    withheld?: boolean;         // 旧内容里有你的密钥，没有存
}

/** 写入之前调用：abs 是要写的文件，old 是它现在的内容（不存在就是 null）。 */
export function backup(abs: string, old: string | null): void {
    const rel = path.relative(permissionRoot(), abs);
    // 旧内容里有你的密钥（比如被覆盖的 .env）就不存：密钥不该从一个文件漏进另一个文件。存脱敏后的也没用——恢复出来的是
    // [REDACTED:…]，反而毁了原文件。这次写入因此不能撤销，/undo 会说明
    const record: UndoRecord = old !== null && redact(old) !== old ? { path: rel, withheld: true } : { path: rel, content: old };
    writeJsonAtomic(UNDO_FILE, record);
}

export function undo(): string {
    const loaded = loadJson(UNDO_FILE);
    if (loaded.state === 'missing') return '没有可以撤销的写入';
    if (loaded.state === 'error') throw new Error(loaded.message);
    const record = loaded.data as UndoRecord;
    if (typeof record?.path !== 'string' || (!record.withheld && record.content !== null && typeof record.content !== 'string')) {
        throw new Error(`${UNDO_FILE} 不是撤销记录：删掉它即可`);
    }
    if (record.withheld) throw new Error(`${record.path} 写入前的内容里有密钥，没有存进撤销记录，这次写入不能撤销（请用版本控制恢复）`);
    const file = safePath(record.path);   // 记录被改成根目录之外的路径，也写不出去
    if (record.content === null) fs.rmSync(file, { force: true });
    else fs.writeFileSync(file, record.content!);
    fs.rmSync(UNDO_FILE);   // 恢复成功之后才删记录：失败了还能再试
    return `已撤销对 ${record.path} 的最近一次写入`;
}
