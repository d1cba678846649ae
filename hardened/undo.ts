// Day 8：撤销。每次确认过的 write / patch 先把旧内容（或「原来不存在」= null）存进 undo.json，
// /undo 恢复它；记录在磁盘上，重启后也能撤销。只保留最近一次。
import fs from 'node:fs';
import path from 'node:path';
import { permissionRoot, safePath } from './permissions.ts';
import { redact } from './redact.ts';
import type { Present } from './storage.ts';
import { loadOwnJson, writeOwnJson } from './written.ts';

export const UNDO_FILE = '.geekagent/undo.json';

export function backup(absPath: string, old: string | null): void {
    const rel = path.relative(permissionRoot(), absPath).split(path.sep).join('/');
    writeOwnJson(UNDO_FILE, recordWithoutSecrets(rel, old));   // Day 8：只认、只覆盖自己写的（written.ts）
}

export function undo(): string {
    const loaded = loadOwnJson(UNDO_FILE);
    if (loaded.state === 'missing') return '没有可以撤销的写入';
    const record = checkedRecord(loaded);
    const file = safePath(record.path);   // 记录被改成越界路径也写不出去
    if (record.content === null) fs.rmSync(file, { force: true });
    else {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, record.content, 'utf8');
    }
    fs.rmSync(UNDO_FILE);   // 恢复成功之后才删除记录：失败时还能再试
    return `已撤销对 ${record.path} 的最近一次写入`;
}

// —— 加固：撤销记录读不出来或被改坏、旧内容里有密钥 ——

interface UndoRecord {
    path: string;               // 相对根目录
    content: string | null;     // null：写入之前这个文件不存在
}

// 旧内容里有密钥时的记录：只记路径，不存内容
interface WithheldRecord {
    path: string;
    withheld: 'secret';
}

/**
 * 旧内容里有认得出的密钥（比如被覆盖的 .env）：不把它明文存进 undo.json，这次写入也就不能撤销，/undo 会说明。
 * 存脱敏后的内容没有用：恢复出来的是 [REDACTED:…]，反而毁了原文件。
 */
function recordWithoutSecrets(rel: string, old: string | null): UndoRecord | WithheldRecord {
    return old !== null && redact(old) !== old ? { path: rel, withheld: 'secret' } : { path: rel, content: old };
}

function checkedRecord(loaded: Present): UndoRecord {
    if (loaded.state === 'error') throw new Error(`读取撤销记录失败：${loaded.message}`);
    const record = loaded.data as Partial<Record<keyof UndoRecord | keyof WithheldRecord, unknown>> | null;
    if (record?.withheld === 'secret' && typeof record.path === 'string') {
        throw new Error(`${record.path} 写入前的内容里有密钥，没有存进撤销记录，这次写入不能撤销（请用版本控制或自己的备份恢复）`);
    }
    if (!record || typeof record.path !== 'string' || (record.content !== null && typeof record.content !== 'string')) {
        throw new Error('撤销记录格式无效');
    }
    return record as UndoRecord;
}
