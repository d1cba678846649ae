// 第 2–4 天：工具注册表（请求的 tools 由它生成，执行时按名字找），报时和 run_shell 两个工具，确认由 index.ts 装进来。
import { exec } from 'node:child_process';

export interface Tool {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
    run(args: any): Promise<string> | string;
}

const registry: Tool[] = [];

export function registerTool(tool: Tool): void {
    registry.push(tool);
}

export const toolSchemas = () => registry.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));

// 执行时永不抛出：找不到工具、参数坏了、工具自己出错，都变成给模型看的一句话
export async function execTool(name: string, argsJson: string): Promise<string> {
    const tool = registry.find((t) => t.name === name);
    if (!tool) return `未知工具：${name}`;
    let args;
    try {
        args = argsJson ? JSON.parse(argsJson) : {};
    } catch {
        return `参数不是合法 JSON：${argsJson}`;
    }
    try {
        return await tool.run(args);
    } catch (e) {
        return `工具执行失败：${(e as Error).message}`;
    }
}

let confirmFn: (question: string) => Promise<boolean> = async () => false;
export const setConfirm = (fn: typeof confirmFn) => { confirmFn = fn; };
export const confirm = (question: string) => confirmFn(question);

registerTool({
    name: 'get_current_time',
    description: '获取当前时间',
    parameters: { type: 'object', properties: {} },
    run: () => new Date().toLocaleString('zh-CN'),
});

registerTool({
    name: 'run_shell',
    description: '执行一条 shell 命令，执行前问用户',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    run: async ({ command }) => {
        if (!(await confirm(`执行命令：${command}`))) return '用户拒绝执行';
        return new Promise((resolve) => {
            exec(command, { timeout: 10_000 }, (error, stdout, stderr) => {
                const output = [stdout, stderr].filter(Boolean).join('\n') || '（没有输出）';
                resolve(error ? `命令失败（${error.message.split('\n')[0]}）\n${output}` : output);
            });
        });
    },
});
