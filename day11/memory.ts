// Day 10：长期记忆。.geekagent/memory.json 是字符串数组，跨对话、跨进程保留。
// 本阶段记忆不会自动放进请求，只能通过 memory_write / memory_search 两个工具读写。
import type { Loaded } from './storage.ts';
import { registerTool } from './tools.ts';
import { loadOwnJson, writeOwnJson } from './written.ts';   // 只认、只覆盖这个用户的 Agent 写的记忆

export const MEMORY_FILE = '.geekagent/memory.json';
let memories: string[] = [];

export function getMemories(): string[] {
    return memories;
}

/** 启动时读取；格式不对就抛出，由入口报错退出，绝不覆盖用户的文件。 */
export function loadMemory(): void {
    memories = checkedMemories(loadOwnJson(MEMORY_FILE));
}

/** 关键词计分：查询按空白拆开，计算有几个关键词是这条记忆的子串；取前 10。 */
export function searchMemory(query: string): string {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return '缺少参数：query';
    const hits = memories
        .map((text) => ({ text, score: words.filter((w) => text.toLowerCase().includes(w)).length }))
        .filter((h) => h.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, 10);
    if (hits.length === 0) return '没有找到相关记忆';
    return `找到 ${hits.length} 条记忆：\n${hits.map((h, i) => `${i + 1}. ${h.text}`).join('\n')}`;
}

export function registerMemoryTools(changed: () => void): void {
    registerTool({
        name: 'memory_write',
        description: '把值得跨对话保留的用户偏好、项目事实或重要决定写入长期记忆。不要记临时进度或能从文件里读到的东西。',
        parameters: {
            type: 'object',
            properties: { content: { type: 'string', description: '一条简洁、离开当前对话也能看懂的事实' } },
            required: ['content'],
            additionalProperties: false,
        },
        run(args) {
            const content = typeof args.content === 'string' ? args.content.trim() : '';
            if (!content) return '缺少参数：content';
            if (memories.includes(content)) return '这条记忆已经存在';
            writeOwnJson(MEMORY_FILE, [...memories, content]);   // 先写盘成功，再改内存
            memories = [...memories, content];
            changed();
            return `已记住：${content}`;
        },
    });
    registerTool({
        name: 'memory_search',
        description: '按关键词搜索长期记忆（用空格分隔多个关键词）。需要用户偏好或项目事实时先搜索，不要猜。',
        parameters: {
            type: 'object',
            properties: { query: { type: 'string', description: '空格分隔的关键词' } },
            required: ['query'],
            additionalProperties: false,
        },
        run: (args) => searchMemory(typeof args.query === 'string' ? args.query : ''),
    });
}

// —— 加固：读坏的记忆文件 ——

/** 没有文件 = 没有记忆；读不出来、不是字符串数组都抛出。空白条目去掉。 */
function checkedMemories(loaded: Loaded<unknown>): string[] {
    if (loaded.state === 'missing') return [];
    if (loaded.state === 'error') throw new Error(`读取长期记忆失败：${loaded.message}`);
    const data = loaded.data;
    if (!Array.isArray(data) || data.some((m) => typeof m !== 'string')) throw new Error(`读取长期记忆失败：${MEMORY_FILE} 必须是字符串数组`);
    return data.map((m: string) => m.trim()).filter(Boolean);
}
