// Day 10：项目说明 AGENTS.md 和每次请求都重新拼出来的系统提示（不存进历史）。
import fs from 'node:fs';
import path from 'node:path';

export const BASE_PROMPT = [
    '你是一个运行在用户本机的编程 Agent。',
    '多步骤任务先用 todo_write 列一个简短计划，然后逐项执行并更新状态；用户明确要求 TODO 或任务列表时，先调用 todo_write；简单任务直接做。',
    '有边界的分析、设计或审查可以用 delegate_task 交给子 Agent，一次一个。',
    '值得跨对话保留的用户偏好、项目事实或重要决定，用 memory_write 记下；需要回忆这些时用 memory_search，不要猜。不要记录临时进度或能从文件里读到的内容。',
].join('\n');

/** 启动时读一次根目录下的 AGENTS.md；不存在就是空。 */
export function loadInstructions(root: string): string {
    try {
        return fs.readFileSync(path.join(root, 'AGENTS.md'), 'utf8').trim();
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
        throw e;
    }
}

export function buildSystemPrompt(parts: { agents: string; skill?: string; recall?: string }): string {
    const sections = [BASE_PROMPT, `项目说明（AGENTS.md）：\n${parts.agents || '无'}`];
    if (parts.skill) sections.push(`技能说明：\n${parts.skill}`);
    // Day 13：本轮自动召回的记忆，只在这一轮的请求里出现
    if (parts.recall) sections.push(`自动召回的长期记忆（仅本轮有效，可能有噪声；重要事实请向用户确认）：\n${parts.recall}`);
    return sections.join('\n\n');
}
