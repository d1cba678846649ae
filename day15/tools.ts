// Day 2：工具、工具注册表、执行与确认。一个工具 = 名字、一句说明、参数的 JSON Schema 和 run：模型按名字请求，程序执行，结果文字交回模型。
import { PERMISSIONS_FILE, policyFor } from './permissions.ts';   // Day 8：权限和脱敏都在 execTool 这一个入口上
import { redact } from './redact.ts';

export interface Tool {
    name: string;
    description: string;
    parameters: Record<string, unknown>;   // JSON Schema，根是 { type: 'object', properties: {…} }
    run(args: Record<string, any>, signal: AbortSignal): string | Promise<string>;   // signal：Ctrl+C 时慢的工具（shell）据此停下
}

// Day 4：工具注册表。一个工具注册一次，就出现在请求的 tools 里、/help 里，模型调用时 execTool 也找得到它；
// 注册的先后就是这两处的顺序
const registry = new Map<string, Tool>();

export function registerTool(tool: Tool): void {
    if (registry.has(tool.name)) throw new Error(`工具 ${tool.name} 已经注册过了`);
    registry.set(tool.name, tool);
}

export function listTools(): Tool[] {
    return [...registry.values()];
}

// Day 11：技能。启用一个技能时只有它的白名单（加上它自带的工具）可见：请求里只发这些，execTool 执行前也再查一遍。null = 全部可见
let visible: Set<string> | null = null;
let visibleFor = '';   // 哪个技能：拒绝时说得出原因

export function setVisibleTools(names: string[] | null, skill: string): void {
    visible = names && new Set(names);
    visibleFor = skill;
}

/** 停用技能时撤下它自带的工具。 */
export function unregisterTool(name: string): void {
    registry.delete(name);
}

/** 请求里的 tools：一个工具在请求里长什么样只写在这里。 */
export function toOpenAITools(): object[] {
    const tools = listTools().filter((t) => !visible || visible.has(t.name));   // Day 11：启用技能时只发可见的
    return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

// 交给模型的一个工具结果最多这么多字符：一次很长的输出不该塞满模型的上下文
const MAX_OUTPUT_CHARS = 2000;

/** 执行一次调用，永不抛异常：未知工具、坏参数、工具自己出错，都变成一句结果交给模型，模型看到原因可以换个做法再试。 */
export async function execTool(name: string, argsJson: string, signal: AbortSignal): Promise<string> {
    const tool = registry.get(name);
    if (!tool) return `未知工具：${name}`;
    // Day 11：白名单在执行时再查一遍：请求里没有它，模型也可能照着历史里的名字调用。不执行，也不问你
    if (visible && !visible.has(name)) return `权限拒绝：技能 ${visibleFor} 启用期间不能使用工具 ${name}`;
    const policy = policyFor(name);   // Day 8：deny 的工具不执行，也不问你
    if (policy === 'deny') return `权限拒绝：${PERMISSIONS_FILE} 不允许使用工具 ${name}`;
    let args;
    try {
        args = JSON.parse(argsJson || '{}');
    } catch {
        return `参数不是有效的 JSON：${argsJson.slice(0, 200)}`;
    }
    let output: string;
    allowing = policy === 'allow';   // Day 8：allow 的工具，这次执行里的 confirm() 直接同意
    try {
        output = await tool.run(args ?? {}, signal);
    } catch (e) {
        output = `工具执行失败：${(e as Error).message}`;
    }
    allowing = false;
    // Day 8：交给模型之前去掉你的密钥。先脱敏再截断：切在密钥中间的半截就认不出来了
    output = redact(output);
    return output.length <= MAX_OUTPUT_CHARS ? output : `${output.slice(0, MAX_OUTPUT_CHARS)}\n…（已截断，共 ${output.length} 个字符）`;
}

/** 取一个非空的字符串参数；缺了就抛出「缺少参数」，由 execTool 变成结果文字。 */
export function stringArg(args: Record<string, unknown>, name: string): string {
    const value = args[name];
    if (typeof value !== 'string' || value === '') throw new Error(`缺少参数：${name}`);
    return value;
}

// Day 3：执行前确认。工具不自己读键盘，只问 confirm() 要一个是或否；前端用 setConfirmFn 换成真正的提问。
// 默认是拒绝：忘了接确认的前端（测试、以后别的前端）得到的是「什么都不执行」，而不是悄悄执行，或者卡住等输入
let confirmFn: (question: string) => Promise<boolean> = async () => false;

export function setConfirmFn(fn: (question: string) => Promise<boolean>): void {
    confirmFn = fn;
}

// Day 8：正在执行一个 allow 的工具。工具一个接一个执行（第 2 天），所以一个变量就够
let allowing = false;

export function confirm(question: string): Promise<boolean> {
    if (allowing) return Promise.resolve(true);   // Day 8：权限表放行了它，不问
    return confirmFn(question);
}
