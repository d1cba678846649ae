// Day 6：多个命名对话，保存在 .geekagent/sessions.json。启动时不自动加载，用户用 /load 恢复。
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Message } from './llm.ts';
import { repairMessages } from './repair.ts';
import { loadJson, type Present } from './storage.ts';
import { loadOwnJson, writeOwnJson } from './written.ts';   // Day 8：存档只认、只覆盖自己写的

export const SESSIONS_FILE = '.geekagent/sessions.json';
const ID = /^[A-Za-z0-9_-]+$/;

interface Archive {
    current: string;
    sessions: Record<string, Message[]>;
}

export class Sessions {
    private map = new Map<string, Message[]>([['default', []]]);
    currentId = 'default';

    /** 每条命令之前先把 Chat 当前的数组写回（压缩可能换掉了数组对象）。 */
    sync(current: Message[]): void {
        this.map.set(this.currentId, current);
    }

    create(id: string, current: Message[]): Message[] {
        if (!ID.test(id)) throw new Error(`对话 id 只能包含字母、数字、_ 和 -：${id}`);
        if (this.map.has(id)) throw new Error(`对话 ${id} 已经存在`);
        this.sync(current);
        this.map.set(id, []);
        this.currentId = id;
        return this.map.get(id)!;
    }

    open(id: string, current: Message[]): Message[] {
        this.sync(current);
        const messages = this.map.get(id);
        if (!messages) throw new Error(`没有名为 ${id} 的对话`);
        this.currentId = id;
        return messages;
    }

    list(current: Message[]): { id: string; count: number; current: boolean }[] {
        this.sync(current);
        return [...this.map.keys()].sort().map((id) => ({ id, count: this.map.get(id)!.length, current: id === this.currentId }));
    }

    /** 保存：与文件里的对话合并（只在文件里的对话保留），再写入。返回写入的对话数。 */
    save(current: Message[]): number {
        this.sync(current);
        const merged = this.mergedWithDisk();
        writeOwnJson(SESSIONS_FILE, { current: this.currentId, sessions: merged });
        return Object.keys(merged).length;
    }

    /** 恢复存档里的全部对话，回到存档时的当前对话；还没有存档时返回 null。 */
    load(): Message[] | null {
        const loaded = loadOwnJson(SESSIONS_FILE);
        if (loaded.state === 'missing') return null;
        const archive = checkedArchive(loaded);
        this.map = new Map(Object.entries(archive.sessions));
        this.currentId = archive.current;
        this.repairAll();
        return this.map.get(this.currentId)!;
    }

    get size(): number {
        return this.map.size;
    }

    static path(): string {
        return path.resolve(SESSIONS_FILE);
    }

    // —— 加固：整理读进来的消息、合并时不覆盖别人的数据、退出时给 default 起名、存档坏了时另存 ——

    repaired = 0;   // 上次 /load 时修好的消息条数
    // 本进程用 /save 存成 default 的内容：退出时它改了名，文件里这份 default 就是重复的
    private savedDefault: string | null = null;

    private repairAll(): void {
        this.repaired = 0;
        for (const [id, list] of this.map) {
            const { messages, fixes } = repairMessages(list);
            this.repaired += fixes;
            this.map.set(id, messages);
        }
    }

    /** 文件存在但读不出来时拒绝写入，用户的数据不会被覆盖。 */
    private mergedWithDisk(): Record<string, Message[]> {
        const loaded = loadOwnJson(SESSIONS_FILE);
        let onDisk: Record<string, Message[]> = {};
        if (loaded.state === 'error') throw new Error(`sessions.json 无法读取，没有覆盖它：${loaded.message}`);
        if (loaded.state === 'ok') {
            try {
                onDisk = validate(loaded.data).sessions;
            } catch (e) {
                throw new Error(`sessions.json 无法读取（${(e as Error).message}），没有覆盖它——请修复或移走它`);
            }
        }
        const merged = { ...onDisk };
        for (const [id, messages] of this.map) {
            // 内存里空的 default 不覆盖文件里有内容的 default
            if (id === 'default' && messages.length === 0 && onDisk.default?.length) continue;
            merged[id] = messages;
        }
        const current = this.map.get(this.currentId)!;
        if (this.currentId === 'default' && current.length > 0) this.savedDefault = JSON.stringify(current);
        // /save 存过的 default 退出时改了名：文件里那份还是我们存的，就删掉，同一段对话只存一次
        else if (!this.map.has('default') && JSON.stringify(onDisk.default) === this.savedDefault) delete merged.default;
        return merged;
    }

    /** 退出时：当前是有内容的 default 就改成一个随机短 id，免得下次保存时和别的 default 混在一起。 */
    nameDefault(current: Message[]): string | null {
        this.sync(current);
        if (this.currentId !== 'default' || current.length === 0) return null;
        const onDisk = loadJson<Archive>(SESSIONS_FILE);
        const taken = (id: string) => this.map.has(id) || (onDisk.state === 'ok' && id in (onDisk.data.sessions ?? {}));
        let id = randomUUID().slice(0, 8);
        while (taken(id)) id = randomUUID().slice(0, 8);
        this.map.delete('default');
        this.map.set(id, current);
        this.currentId = id;
        return id;
    }

    /** sessions.json 读不出来时：不碰它，把本进程的对话写进一个新文件，返回它的绝对路径。 */
    rescue(current: Message[]): string {
        this.sync(current);
        const file = SESSIONS_FILE.replace(/\.json$/, `-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
        writeOwnJson(file, { current: this.currentId, sessions: Object.fromEntries(this.map) });
        return path.resolve(file);
    }
}

const ROLES = ['system', 'user', 'assistant', 'tool', 'developer', 'function'];

/** /load 时：读不出来、格式不对都整体拒绝，不做部分恢复。 */
function checkedArchive(loaded: Present): Archive {
    if (loaded.state === 'error') throw new Error(`没有载入存档：${loaded.message}`);
    return validate(loaded.data);
}

/** 校验存档：任何一处不对都整体拒绝（消息只查角色，别的交给 repair.ts 整理）。 */
function validate(data: unknown): Archive {
    const bad = () => new Error('存档不是有效的对话数据');
    const d = data as Archive;
    if (!d || typeof d !== 'object' || typeof d.current !== 'string' || !d.sessions || typeof d.sessions !== 'object') throw bad();
    for (const [id, messages] of Object.entries(d.sessions)) {
        if (!ID.test(id) || !Array.isArray(messages)) throw bad();
        for (const m of messages) if (!m || typeof m !== 'object' || !ROLES.includes(m.role)) throw bad();
    }
    // hasOwn 而不是 in：current 写成 "toString" 之类时 in 会沿原型链找到它，恢复出 undefined
    if (!Object.hasOwn(d.sessions, d.current)) throw bad();
    return d;
}
