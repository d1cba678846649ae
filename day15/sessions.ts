// Day 6：命名对话。内存里是一张表 id → 消息数组，存在 .geekagent/sessions.json：{ "current": id, "sessions": { id: 消息[] } }。
// 启动时总是一个空的 default；/new、/open 在对话之间切换，/load 读回存档，/save 和退出时写入。
import type { Message } from './llm.ts';
import { loadJson, writeJsonAtomic } from './storage.ts';

export const SESSIONS_FILE = '.geekagent/sessions.json';
const ID = /^[\w-]+$/;   // id 只用字母、数字、_ 和 -：它要写在命令里

interface Archive {
    current: string;
    sessions: Record<string, Message[]>;
}

export class Sessions {
    private map = new Map<string, Message[]>([['default', []]]);
    currentId = 'default';

    /** 新建一个空对话并切过去；返回新对话的消息数组，由调用方交给 Chat。current 是 Chat 手里的当前历史，先存回表里。 */
    create(id: string, current: Message[]): Message[] {
        if (!ID.test(id)) throw new Error(`对话 id 只能包含字母、数字、_ 和 -：${id}`);
        if (this.map.has(id)) throw new Error(`对话 ${id} 已经存在，切过去用 /open ${id}`);
        return this.switchTo(id, current, []);
    }

    open(id: string, current: Message[]): Message[] {
        const messages = this.map.get(id);
        if (!messages) throw new Error(`没有名为 ${id} 的对话（/sessions 列出所有对话）`);
        return this.switchTo(id, current, messages);
    }

    /** 每个对话一行，当前的前面有 *。 */
    list(current: Message[]): string[] {
        this.map.set(this.currentId, current);
        const ids = [...this.map.keys()].sort();
        return ids.map((id) => `${id === this.currentId ? '*' : ' '} ${id}（${this.map.get(id)!.length} 条消息）`);
    }

    /**
     * 保存：先读文件里的存档，只在文件里的对话（别的进程、上次运行存的）照样留着，再把内存里的整份写回。
     * 文件在、却读不出来时不写：抛出，说清坏在哪一行哪一列——覆盖它就丢了里面的一切。返回文件里现在有几个对话。
     */
    save(current: Message[], file = SESSIONS_FILE): number {
        this.map.set(this.currentId, current);
        const sessions = { ...readArchive(file)?.sessions };
        for (const [id, messages] of this.map) {
            if (id === 'default' && messages.length === 0 && sessions.default?.length) continue;   // 空的 default 不盖掉有内容的
            sessions[id] = messages;
        }
        writeJsonAtomic(file, { current: this.currentId, sessions });
        return Object.keys(sessions).length;
    }

    /** /load：换成存档里的全部对话，回到存档时的当前对话，返回它的消息。还没有存档时返回 null；读不出来时抛出，什么都不变。 */
    load(): Message[] | null {
        const archive = readArchive(SESSIONS_FILE);
        if (!archive) return null;
        this.map = new Map(Object.entries(archive.sessions));
        this.currentId = archive.current;
        return this.map.get(this.currentId)!;
    }

    get size(): number {
        return this.map.size;
    }

    private switchTo(id: string, current: Message[], messages: Message[]): Message[] {
        this.map.set(this.currentId, current);   // 压缩、/reset 都会换掉 Chat 手里的数组：先把它存回表里
        this.map.set(id, messages);
        this.currentId = id;
        return messages;
    }
}

/** 读存档：不存在是 null；读不出来、不像存档，都抛出（说怎么办），不做「读出一部分」。 */
function readArchive(file: string): Archive | null {
    const loaded = loadJson(file);
    if (loaded.state === 'missing') return null;
    if (loaded.state === 'error') throw new Error(`${loaded.message}\n（没有覆盖它）`);
    const a = loaded.data as Archive;
    // hasOwn 而不是 in：current 写成 "toString" 时 in 会沿着原型链找到它
    const ok = a && typeof a === 'object' && a.sessions && typeof a.sessions === 'object' && typeof a.current === 'string'
        && Object.hasOwn(a.sessions, a.current) && Object.values(a.sessions).every(Array.isArray);
    if (!ok) throw new Error(`${file} 不是对话存档（要有 current 和 sessions），没有用它，也没有覆盖它：修好或移走它`);
    return a;
}
