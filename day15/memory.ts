// Day 10：长期记忆。.geekagent/memory.json 是一个字符串数组，跨对话、跨进程保留（第 6 天的存档只管对话：新开一个就看不到旧的）。
// 记忆不自动进请求：模型用 memory_write 记、用 memory_search 查（第 13 天才按你这句话自动召回）。
import { searchMemory } from './recall.ts';   // Day 13：BM25，按块
import { redact } from './redact.ts';
import { loadJson, writeJsonAtomic } from './storage.ts';
import { registerTool, stringArg } from './tools.ts';

export const MEMORY_FILE = '.geekagent/memory.json';

let memories: string[] = [];
let problem = '';   // 文件在、却读不出来：说清楚，这次不用记忆，也绝不覆盖它

export function getMemories(): string[] {
    return memories;
}

/**
 * 启动时读一次。不存在就是还没有记忆；读不出来（JSON 写坏了、不是字符串数组）时照第 6 天的规矩：不当成空的——当成空的，
 * 下一次 memory_write 就用一条记忆盖掉了里面的一切。返回要告诉你的一句话，没问题时是 ''。
 */
export function loadMemory(): string {
    const loaded = loadJson(MEMORY_FILE);
    if (loaded.state === 'missing') return '';
    const data = loaded.state === 'ok' ? loaded.data : null;
    if (Array.isArray(data) && data.every((m) => typeof m === 'string')) {
        memories = data.map((m) => m.trim()).filter(Boolean);
        return '';
    }
    const why = loaded.state === 'error' ? loaded.message : `${MEMORY_FILE} 不是字符串数组`;
    problem = `长期记忆这次不可用（没有覆盖它）：${why}`;
    return problem;
}

export function registerMemoryTools(): void {
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
            if (problem) return problem;
            // 存进文件之前脱敏：模型可能把你说过的密钥当成「事实」记下来（第 8 天：密钥不从一处漏进别的文件）
            const content = redact(stringArg(args, 'content').trim());
            if (memories.includes(content)) return '这条记忆已经有了';
            writeJsonAtomic(MEMORY_FILE, [...memories, content]);   // 第 6 天的原子写入。先写盘成功，再改内存：两者始终一致
            memories = [...memories, content];
            return `已记住：${content}`;
        },
    });
    registerTool({
        name: 'memory_search',
        description: '按关键词检索长期记忆（BM25，按块返回）。需要用户偏好或项目事实时先搜索，不要猜。',
        parameters: {
            type: 'object',
            properties: { query: { type: 'string', description: '空格分隔的关键词' } },
            required: ['query'],
            additionalProperties: false,
        },
        run: (args) => problem || searchMemory(memories, stringArg(args, 'query')),   // Day 13：BM25，按块
    });
}
