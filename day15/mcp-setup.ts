// Day 15：把 MCP 客户端（mcp.ts）接进 Agent：读配置、并发连接、把工具注册进注册表、重连、退出时关闭。
import { buildMcpTools, loadMcpConfig, McpManager, mcpStartupMessages } from './mcp.js';
import { authorize, ensureToolPolicy } from './permissions.js';
import { redact } from './redact.js';
import { listTools, registerTool, unregisterTool } from './tools.js';

export const MCP_FILE = '.geekagent/mcp.json';

const deps = {
    authorize,
    redact,
    ensureToolPolicy,
    isTaken: (name: string) => listTools().some((t) => t.name === name),
};

/** 读配置并建好管理器；配置文件读不了或不是合法 JSON 时抛出，入口报错退出。 */
export function createMcp(onLog?: (server: string, line: string) => void): McpManager {
    return new McpManager(loadMcpConfig(MCP_FILE), { onLog });
}

/** 所有服务器同时连接，全部结束后按配置顺序注册工具；返回启动时要提示的行（失败的服务器等）。 */
export async function startMcp(manager: McpManager): Promise<string[]> {
    await manager.connectAll();
    const tools = buildMcpTools(manager, deps);
    for (const tool of tools) registerTool(tool);
    return mcpStartupMessages(manager, tools.length);
}

/** /mcp reconnect NAME：停掉、注销旧工具、重新连接、注册新的工具列表。 */
export async function reconnectMcp(manager: McpManager, name: string): Promise<string> {
    const server = manager.get(name);
    if (!server) throw new Error(`没有名为 ${name} 的 MCP 服务器`);
    for (const e of server.exposed) unregisterTool(e.name);
    await manager.reconnect(name);
    for (const tool of buildMcpTools(manager, deps, name)) registerTool(tool);
    return server.status === 'connected' ? `${name} 已重新连接（${server.exposed.length} 个工具）` : `${name} 重连失败：${server.error}`;
}
