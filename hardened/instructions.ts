// Day 10：项目说明 AGENTS.md 和每次请求都重新拼出来的系统提示（不存进历史）。
import fs from 'node:fs';
import path from 'node:path';
import { safePath } from './permissions.ts';

export const BASE_PROMPT = [
    '你是一个运行在用户本机的编程 Agent。',
    '多步骤任务先用 todo_write 列一个简短计划，然后逐项执行并更新状态；用户明确要求 TODO 或任务列表时，先调用 todo_write；简单任务直接做。',
    '有边界的分析、设计或审查可以用 delegate_task 交给子 Agent，一次一个。',
    '值得跨对话保留的用户偏好、项目事实或重要决定，用 memory_write 记下；需要回忆这些时用 memory_search，不要猜。不要记录临时进度或能从文件里读到的内容。',
].join('\n');

/** 启动时读一次根目录下的 AGENTS.md；不存在就是空。 */
export function loadInstructions(root: string): string {
    return readInsideRoot(path.join(root, 'AGENTS.md')).trim();
}

export function buildSystemPrompt(parts: { agents: string; skill?: string; recall?: string }): string {
    const sections = [BASE_PROMPT, `项目说明（AGENTS.md）：\n${parts.agents || '无'}`];
    if (parts.skill) sections.push(`技能说明：\n${parts.skill}`);
    // Day 13：本轮自动召回的记忆，只在这一轮的请求里出现
    if (parts.recall) sections.push(`自动召回的长期记忆（仅本轮有效，可能有噪声；重要事实请向用户确认）：\n${parts.recall}`);
    return sections.join('\n\n');
}

// —— 加固：项目说明只读根目录里的普通文件 ——

/**
 * 和 read 工具同一个 safePath：AGENTS.md 是指向根目录外面的链接（比如 /proc/self/environ，整个环境连同密钥）时不读，
 * 不然它会进系统提示发给模型。FIFO、设备、目录也不读（FIFO 会让启动卡住）。
 */
function readInsideRoot(file: string): string {
    const name = path.basename(file);
    let real: string;
    try {
        real = safePath(file);
    } catch {
        throw new Error(`${name} 指向根目录之外，没有读取（只读根目录里的文件，免得把别处的内容发给模型）`);
    }
    const stat = fs.statSync(real, { throwIfNoEntry: false });
    if (!stat) return '';
    if (!stat.isFile()) throw new Error(`${name} 不是普通文件，没有读取`);
    return fs.readFileSync(real, 'utf8');
}
