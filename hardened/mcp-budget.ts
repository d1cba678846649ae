// —— 加固：工具的名额与开销 ——
// Day 15：工具是有代价的。OpenAI 一次请求最多带 128 个工具（内置的也算），超过就整轮 400；每个工具的说明和参数模式
// 每次请求都要重发一遍。这里管三件事：每台服务器挑哪些工具（mcp.json 的 includeTools / excludeTools，字段名与
// Gemini CLI 相同），装不下时的提示，以及每台服务器的开销。
import type { McpServerConfig } from './mcp-config.ts';
import { openAITool, type Tool } from './tools.ts';

export const MAX_TOOLS = 128;

// 按服务器上的原名挑选；两个字段都写时，先只留 includeTools 里的，再去掉 excludeTools 里的
export function toolChoice(config?: McpServerConfig): (tool: string) => boolean {
    const include = config?.includeTools && new Set(config.includeTools);
    const exclude = new Set(config?.excludeTools ?? []);
    return (tool) => (!include || include.has(tool)) && !exclude.has(tool);
}

export interface LeftOut {
    server: string;
    count: number;      // 没装下的个数
    total: number;      // 这台服务器挑选后的工具数
}

/** 装不下时提示一次：哪些服务器的工具没交给模型、怎样自己挑。 */
export function budgetNotice(leftOut: LeftOut[], builtins: number): string {
    const parts = leftOut.map((l) => (l.count === l.total ? `${l.server} 的全部 ${l.total} 个` : `${l.server} 的 ${l.count} 个（共 ${l.total} 个）`));
    return `工具超过一次请求 ${MAX_TOOLS} 个的上限（内置 ${builtins} 个，MCP 按 mcp.json 里的顺序装入）：`
        + `${parts.join('、')}工具没有交给模型。`
        + '可在 .geekagent/mcp.json 里给服务器加 includeTools（只要这些）或 excludeTools（不要这些），写工具在服务器上的原名';
}

/** 这些工具每次请求要发送的字符数：和请求体里的 tools 项同样的 JSON。 */
export function toolChars(tools: Tool[]): number {
    return tools.reduce((chars, t) => chars + JSON.stringify(openAITool(t)).length, 0);
}

// 粗估：英文 JSON 大约 4 个字符一个 token；中文说明会多一些，所以只说「约」
export function costText(chars: number): string {
    return `每次请求约 ${chars.toLocaleString('en-US')} 字符（≈${Math.round(chars / 4).toLocaleString('en-US')} token）`;
}
