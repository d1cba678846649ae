// Day 8：撤销。每次确认过的 write / patch 先把旧内容（或「原来不存在」= null）存进 undo.json，
// /undo 恢复它；记录在磁盘上，重启后也能撤销。只保留最近一次。
import fs from 'node:fs';
import path from 'node:path';
import { permissionRoot, safePath } from './permissions.js';
import { loadJson, writeJsonAtomic } from './storage.js';

export const UNDO_FILE = '.geekagent/undo.json';

export function backup(absPath: string, old: string | null): void {
    const rel = path.relative(permissionRoot(), absPath).split(path.sep).join('/');
    writeJsonAtomic(UNDO_FILE, { path: rel, content: old });
}

export function undo(): string {
    const loaded = loadJson<{ path?: unknown; content?: unknown }>(UNDO_FILE);
    if (loaded.state === 'missing') return '没有可以撤销的写入';
    if (loaded.state === 'error') throw new Error(`读取撤销记录失败：${loaded.message}`);
    const record = loaded.data;
    if (!record || typeof record.path !== 'string' || (record.content !== null && typeof record.content !== 'string')) {
        throw new Error('撤销记录格式无效');
    }
    const file = safePath(record.path);
    if (record.content === null) fs.rmSync(file, { force: true });
    else {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, record.content, 'utf8');
    }
    fs.rmSync(UNDO_FILE);   // 恢复成功之后才删除记录：失败时还能再试
    return `已撤销对 ${record.path} 的最近一次写入`;
}
