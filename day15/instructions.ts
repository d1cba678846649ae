// Day 10：系统提示和项目说明 AGENTS.md。系统提示每次请求前重新拼（Chat.setSystemPrompt），只放进请求、从不存进历史：
// 存档、压缩、失败回滚都不用管它，换了技能下一次请求就换了说明。
import fs from 'node:fs';
import { safePath } from './permissions.ts';

export const BASE_PROMPT = [
    '你是一个运行在用户本机的编程 Agent。',
    '多步骤任务先用 todo_write 列一个简短计划，然后逐项执行并更新状态；用户明确要求 TODO 或任务列表时，先调用 todo_write；简单任务直接做。',
    '有边界的分析、设计或审查可以用 delegate_task 交给子 Agent，一次一个。',
    '值得跨对话保留的用户偏好、项目事实或重要决定，用 memory_write 记下；需要回忆这些时用 memory_search，不要猜。不要记录临时进度或能从文件里读到的内容。',
].join('\n');

/**
 * 根目录（第 8 天的权限根目录）下的 AGENTS.md，信任问题答完之后读一次；没有就是空。和 read 工具走同一个 safePath：
 * 它是指向根目录外面的链接（比如 /proc/self/environ，整个环境连同密钥）时不读。不是普通文件（目录、命名管道）也不读：
 * 命名管道会让启动永远等下去。读不了就抛出，入口说一句，Agent 照常运行——它只是一段文字。
 */
export function loadInstructions(): string {
    const file = safePath('AGENTS.md');
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) return '';
    if (!stat.isFile()) throw new Error('AGENTS.md 不是普通文件，没有读');
    return fs.readFileSync(file, 'utf8').trim();
}

/**
 * AGENTS.md 是文件夹自己的文件，克隆来的仓库可以随便写：它只是交给模型的一段文字，能「劝」模型，决定不了任何事——
 * 权限照第 8 天的表，写文件、跑命令照样要过 execTool 和你的 [y/N]；它也放不进 .env 或 GeekAgent.json 的设置。
 * 技能说明（第 11 天）只在 /use 之后出现。整段在 Chat 里发出之前脱敏：这两段文字里都可能写着密钥。
 */
export function buildSystemPrompt(parts: { agents: string; skill?: string }): string {
    const sections = [BASE_PROMPT, `项目说明（AGENTS.md）：\n${parts.agents || '无'}`];
    if (parts.skill) sections.push(`技能说明：\n${parts.skill}`);   // Day 11
    return sections.join('\n\n');
}
