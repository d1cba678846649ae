// Day 4：工具注册表。模型通过 function calling 请求工具，程序执行后把结果文本交回模型。
import { authorize, policyFor } from './permissions.ts';
import { redact, redactHead } from './redact.ts';

export interface Tool {
    name: string;
    description: string;
    parameters: Record<string, unknown>;   // JSON Schema，根为 {type:'object', properties:{…}}
    // 本轮的取消信号：Esc / Ctrl+C 时慢的工具（shell、抓网页、MCP 调用）据此停下，而不是在后台继续
    run(args: Record<string, unknown>, signal?: AbortSignal): string | Promise<string>;
    authorizes?: boolean;                  // Day 8：工具自己带着详细提示（命令、diff）调用 authorize
}

const registry = new Map<string, Tool>();

export function registerTool(tool: Tool): void {
    if (registry.has(tool.name)) throw new Error(`工具 ${tool.name} 已经注册过了`);
    registry.set(tool.name, tool);
}

export function listTools(): Tool[] {
    return [...registry.values()];
}

// Day 11：技能停用时撤下它带来的工具；启用技能时只有白名单里的工具可见，null = 全部可见
export function unregisterTool(name: string): void {
    registry.delete(name);
}

let allowedTools: Set<string> | null = null;
let allowedFor = '';

export function setVisibleTools(names: string[] | null, skill: string): void {
    allowedTools = names && new Set(names);
    allowedFor = skill;
}

function isAllowed(name: string): boolean {
    return !allowedTools || allowedTools.has(name);
}

/** 一个工具在请求里的样子：这个格式只写在这里。 */
export function openAITool(tool: Tool): object {
    return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

/** 发给模型的 tools 数组；为空时调用方不要发 tools 字段。 */
export function toOpenAITools(): object[] {
    return listTools().filter((t) => isAllowed(t.name)).map(openAITool);
}

/** 执行工具，永不抛异常：所有问题都变成模型读得懂的结果文本。 */
export async function execTool(name: string, argsJson: string, signal?: AbortSignal): Promise<string> {
    const tool = registry.get(name);
    if (!tool) return `未知工具：${name}`;
    const args = parseArgs(argsJson);
    if (typeof args === 'string') return redact(args);   // 不是 JSON 对象：说明文字交回模型
    // Day 11：白名单在执行时也检查，模型照着旧的工具列表调用也会被拒绝
    if (!isAllowed(name)) return `权限拒绝：技能 ${allowedFor} 启用期间不能使用工具 ${name}`;
    // Day 8：先过权限。脱敏的分工：execTool 给工具结果脱敏；truncateOutput 和 read 分页会截断，所以先脱敏（半截密钥认不出来）；
    // 追踪在 trace 里脱敏，第 10 天起系统提示在 Chat.requestOnce 里；确认提示不脱敏（authorize 只补一行说出其中的密钥）；撤销记录不存带密钥的旧内容（undo）
    const denied = `权限拒绝：不允许使用工具 ${name}`;
    if (policyFor(name) === 'deny') return denied;
    if (!tool.authorizes && !(await authorize(name))) return denied;
    try {
        return redact(await tool.run(args, signal));
    } catch (e) {
        return redact(`工具执行失败：${(e as Error).message}`);
    }
}

/** 取字符串参数；缺失时抛出「缺少参数」，由 execTool 转成结果文本。 */
export function stringArg(args: Record<string, unknown>, name: string): string {
    const v = args[name];
    if (typeof v !== 'string' || v === '') throw new Error(`缺少参数：${name}`);
    return v;
}

// —— 加固：参数解析与输出截断 ——

/** 参数必须是 JSON 对象（空字符串当 {}）；不是时返回给模型看的说明文本。 */
function parseArgs(argsJson: string): Record<string, unknown> | string {
    let args: unknown;
    try {
        args = JSON.parse(argsJson.trim() === '' ? '{}' : argsJson);
    } catch (e) {
        return `参数不是有效的 JSON：${(e as Error).message}`;
    }
    if (!args || typeof args !== 'object' || Array.isArray(args)) return '参数不是有效的 JSON：必须是一个对象';
    return args as Record<string, unknown>;
}

export const MAX_OUTPUT_CHARS = 2000;

/** 唯一的截断函数：给模型看的文本要截断都用它，截断的标记只写在这里。 */
export function truncateOutput(text: string, max = MAX_OUTPUT_CHARS): string {
    // Day 8：先脱敏再截断（脱敏的分工写在 execTool 里）
    const { head, rest } = redactHead(text, max);
    const total = head.length + rest;
    return total <= max ? head : `${head.slice(0, max)}\n…(已截断，共 ${total} 个字符)`;
}
