// Day 9：子 Agent。delegate_task 把一个有边界的子任务交给一次全新的请求：只有子 Agent 的系统提示和这条任务，
// 没有主对话的历史、没有工具。它想得再多，回到主对话的只有结论——一条 tool 消息，和别的工具结果一样先脱敏、截断。
import type { Config } from './config.ts';
import { streamChat } from './llm.ts';
import { registerTool, stringArg } from './tools.ts';

const SUB_AGENT_PROMPT = '你是子 Agent，只完成交给你的这一个子任务；返回主 Agent 可以直接使用的简明结果，不要寒暄。';

export function registerSubAgentTool(cfg: Config): void {
    registerTool({
        name: 'delegate_task',
        description: '把一个有边界的分析、设计或审查子任务交给子 Agent，拿回简明结论。子 Agent 看不到对话和文件：任务里要写全它需要的内容。',
        parameters: {
            type: 'object',
            properties: { task: { type: 'string', description: '完整、自包含的子任务描述' } },
            required: ['task'],
            additionalProperties: false,
        },
        // signal 是这一轮的：Ctrl+C 时子 Agent 的请求跟着断开，不在后台接着生成、接着计费
        run: (args, signal) => askSubAgent(cfg, stringArg(args, 'task'), signal),
    });
}

/**
 * 用的还是第 1 天的 streamChat（同一个地址、密钥、重试），只是不显示：把流读完，取整段文字——不必为一次请求再写一个
 * 非流式的客户端（第 5 天的压缩也是这样）。不带工具：子 Agent 什么也做不了，也就绕不过权限；要它看的内容由主 Agent 写进任务。
 */
async function askSubAgent(cfg: Config, task: string, signal: AbortSignal): Promise<string> {
    const stream = streamChat(cfg, [{ role: 'system', content: SUB_AGENT_PROMPT }, { role: 'user', content: task }], [], signal);
    for (;;) {
        const step = await stream.next();
        if (step.done) return step.value.text.trim() || '子 Agent 没有给出结论';
    }
}
