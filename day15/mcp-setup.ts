// Day 15：把 MCP 客户端接进 Agent：读配置、并发连接、把工具注册进注册表、重连、退出时关闭，
// 以及 /mcp 命令和面板上的文字。
import { McpClient } from './mcp-client.js';
import { loadMcpConfig, mcpTrustNeeds, type McpEntry } from './mcp-config.js';
import { buildMcpTools, type McpToolDeps, type McpToolSet } from './mcp-tools.js';
import { authorize, ensureToolPolicy } from './permissions.js';
import { redact } from './redact.js';
import { listTools, registerTool, unregisterTool, type Tool } from './tools.js';
import { TRUST_FILE } from './trust.js';

export const MCP_FILE = '.geekagent/mcp.json';
const TOOL_WARN_COUNT = 128;             // OpenAI 单次请求最多 128 个工具
const NO_TOOLS: McpToolSet = { exposed: [], skipped: [] };

export class McpManager {
    readonly servers: McpClient[];
    readonly trustNeeds: string[];      // 信任问题里列出的、这些服务器会运行的命令
    untrusted = false;                  // 用户不信任这个文件夹：一台也不启动，重连也不行
    private readonly toolSets = new Map<string, McpToolSet>();   // 每台服务器最近一次交给模型的工具

    // onLog：纯文本前端用它把 stderr 暗色回显成 [mcp:NAME] line
    constructor(entries: McpEntry[], onLog?: (server: string, line: string) => void) {
        this.servers = entries.map((e) => new McpClient(e, onLog));
        this.trustNeeds = mcpTrustNeeds(entries);
    }

    // 所有服务器同时连接：三个各要 1 秒握手的服务器，总共也只等 1 秒左右
    async connectAll(): Promise<void> {
        if (this.untrusted) return;
        await Promise.all(this.servers.map((s) => s.connect()));
    }

    async stopAll(): Promise<void> {
        await Promise.all(this.servers.map((s) => s.stop()));
    }

    get(name: string): McpClient | undefined {
        return this.servers.find((s) => s.name === name);
    }

    toolsOf(name: string): McpToolSet {
        return this.toolSets.get(name) ?? NO_TOOLS;
    }

    // 按配置顺序为已连接的服务器生成工具并记下；only：只为重连的那一台生成。
    // isTaken：注册表里已经有的名字（内置工具、技能工具）
    buildTools(deps: McpToolDeps, isTaken: (name: string) => boolean, only?: string): Tool[] {
        const rebuild = this.servers.filter((s) => only === undefined || s.name === only);
        for (const s of rebuild) this.toolSets.delete(s.name);
        const used = new Set([...this.toolSets.values()].flatMap((set) => set.exposed.map((e) => e.tool.name)));
        const tools: Tool[] = [];
        for (const client of rebuild) {
            const set = buildMcpTools(client, deps, (n) => used.has(n) || isTaken(n));
            for (const e of set.exposed) {
                used.add(e.tool.name);
                tools.push(e.tool);
            }
            this.toolSets.set(client.name, set);
        }
        return tools;
    }

    // 调用方先注销旧工具（toolsOf 里的名字），之后用 buildTools(…, name) 重新生成
    async reconnect(name: string): Promise<McpClient> {
        const client = this.get(name);
        if (!client) throw new Error(`没有名为 ${name} 的 MCP 服务器`);
        if (this.untrusted) throw new Error(UNTRUSTED);
        await client.stop();
        this.toolSets.delete(name);
        await client.connect();
        return client;
    }
}

const UNTRUSTED = `未信任此文件夹，项目的 MCP 服务器不启动（删掉 ${TRUST_FILE} 里它的那一项，重启时会重新询问）`;

const deps: McpToolDeps = { authorize, redact, ensureToolPolicy };
const isRegistered = (name: string) => listTools().some((t) => t.name === name);

/** 读配置并建好管理器；配置文件读不了或不是合法 JSON 时抛出，入口报错退出。 */
export function createMcp(onLog?: (server: string, line: string) => void): McpManager {
    return new McpManager(loadMcpConfig(MCP_FILE), onLog);
}

/** 所有服务器同时连接，全部结束后按配置顺序注册工具；返回启动时要提示的行（失败的服务器等）。 */
export async function startMcp(manager: McpManager): Promise<string[]> {
    await manager.connectAll();
    const tools = manager.buildTools(deps, isRegistered);
    for (const tool of tools) registerTool(tool);
    return mcpStartupMessages(manager, tools.length);
}

/** /mcp reconnect NAME：停掉、注销旧工具、重新连接、注册新的工具列表。 */
export async function reconnectMcp(manager: McpManager, name: string): Promise<string> {
    for (const e of manager.toolsOf(name).exposed) unregisterTool(e.tool.name);
    const client = await manager.reconnect(name);
    for (const tool of manager.buildTools(deps, isRegistered, name)) registerTool(tool);
    if (client.status !== 'connected') return `${name} 重连失败：${client.error}`;
    return `${name} 已重新连接（${manager.toolsOf(name).exposed.length} 个工具）`;
}

// 启动时要显示的行：每个失败的服务器一行，工具总数超过 128 时再加一条警告
export function mcpStartupMessages(manager: McpManager, totalTools: number): string[] {
    const lines = manager.servers.filter((s) => s.status === 'failed').map((s) => `MCP 服务器 ${s.name} 启动失败：${s.error}`);
    if (totalTools > TOOL_WARN_COUNT) lines.push(`MCP 工具共 ${totalTools} 个，超过 OpenAI 单次请求的 ${TOOL_WARN_COUNT} 个上限`);
    return lines;
}

// /mcp 命令的输出：每台服务器的工具（改过名的注明原名），再加最近 5 行日志
export function mcpStatusText(manager: McpManager): string {
    if (manager.servers.length === 0) return '（没有已连接的 MCP 服务器；请在 .geekagent/mcp.json 中声明后重启）';
    if (manager.untrusted) return `${UNTRUSTED}：${manager.servers.map((s) => s.name).join('、')}`;
    const out: string[] = [];
    for (const s of manager.servers) {
        const { exposed, skipped } = manager.toolsOf(s.name);
        if (s.status === 'connected') {
            out.push(`${s.name}（${exposed.length} 个工具）`);
            for (const e of exposed) {
                const renamed = e.tool.name !== `mcp_${s.name}_${e.original}`;
                out.push(`  ${e.tool.name}${renamed ? ` ← ${e.original}` : ''}`);
            }
            for (const k of skipped) out.push(`  （已跳过 ${k}：名字冲突）`);
        } else if (s.status === 'connecting') {
            out.push(`${s.name}（连接中…）`);
        } else {
            out.push(`× ${s.name}：${s.error}`);
        }
        for (const line of s.logs.slice(-5)) out.push(`    ${line.text}`);
    }
    return out.join('\n');
}

// 面板的 MCP 一行：demo(2) fs(14)
export function mcpPanelText(manager: McpManager): string {
    if (manager.servers.length === 0) return '无';
    if (manager.untrusted) return '未信任，未启动';
    if (manager.servers.some((s) => s.status === 'connecting')) return '连接中…';
    return manager.servers.map((s) => {
        if (s.status === 'connected') return `${s.name}(${manager.toolsOf(s.name).exposed.length})`;
        return `${s.name}(${s.status === 'failed' ? '失败' : '已退出'})`;
    }).join(' ');
}
