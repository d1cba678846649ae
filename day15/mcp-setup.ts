// Day 15：把 MCP 客户端接进 Agent：读配置、并发连接、把工具注册进注册表、重连、退出时关闭，
// 以及 /mcp 命令和面板上的文字。
import { setTimeout as delay } from 'node:timers/promises';
import { budgetNotice, costText, MAX_TOOLS, toolChars, toolChoice, type LeftOut } from './mcp-budget.js';
import { McpClient } from './mcp-client.js';
import { loadMcpConfig, mcpTrustNeeds, type McpEntry } from './mcp-config.js';
import { buildMcpTools, type McpToolDeps, type McpToolSet } from './mcp-tools.js';
import { authorize, ensureToolPolicy, recordToolPolicies } from './permissions.js';
import { redact } from './redact.js';
import { listTools, registerTool, unregisterTool, type Tool } from './tools.js';
import { TRUST_FILE } from './trust.js';

export const MCP_FILE = '.geekagent/mcp.json';
const FIRST_REQUEST_WAIT_MS = 3000;       // 第一次请求模型前最多等还在连接的服务器这么久
const NO_TOOLS: McpToolSet = { exposed: [], skipped: [] };

export class McpManager {
    readonly servers: McpClient[];
    configError = '';                                            // mcp.json 整个读不了时的原因，启动时和 /mcp 里显示
    readonly trustNeeds: string[];                               // 信任问题里列出的、这些服务器会运行的命令
    untrusted = false;                                           // 用户不信任这个文件夹：一台也不启动，重连也不行
    private readonly toolSets = new Map<string, McpToolSet>();   // 每台服务器最近一次交给模型的工具
    private readonly overBudget = new Map<string, LeftOut>();     // 超出 128 个上限、没交给模型的
    private readonly choices: Map<string, (tool: string) => boolean>;
    private builtins = 0;                                          // 启动时注册表里已有的工具数，提示里要说
    startup: Promise<void> = Promise.resolve();                   // 启动时那一次并发连接（连同注册工具）

    // onLog：纯文本前端用它把 stderr 暗色回显成 [mcp:NAME] line
    constructor(entries: McpEntry[], onLog?: (server: string, line: string) => void) {
        this.servers = entries.map((e) => new McpClient(e, onLog));
        this.choices = new Map(entries.map((e) => [e.name, toolChoice(e.config)]));
        this.trustNeeds = mcpTrustNeeds(entries);
    }

    // 所有服务器同时连接：三个各要 1 秒握手的服务器，总共也只等 1 秒左右。
    // onDone：每台连完（成功或失败）马上调用，先连上的不必等最慢的那台
    async connectAll(onDone?: (server: McpClient) => void): Promise<void> {
        if (this.untrusted) return;
        this.startup = Promise.all(this.servers.map(async (s) => {
            await s.connect();
            onDone?.(s);
        })).then(() => {});
        await this.startup;
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

    /** 没装下的服务器，按配置顺序。 */
    leftOut(): LeftOut[] {
        return this.servers.flatMap((s) => this.overBudget.get(s.name) ?? []);
    }

    /** 有工具没装下时的那条提示（启动时和 /mcp 里都用）；都装下了就是空的。 */
    budgetLines(): string[] {
        const leftOut = this.leftOut();
        return leftOut.length === 0 ? [] : [budgetNotice(leftOut, this.builtins)];
    }

    // 按配置顺序为已连接的服务器生成工具并记下；only：只为重连的那一台生成。
    // isTaken：注册表里已经有的名字（内置工具、技能工具）；room：还能装几个工具，装满后其余的不交给模型
    buildTools(deps: McpToolDeps, isTaken: (name: string) => boolean, room: number, only?: string): Tool[] {
        const rebuild = this.servers.filter((s) => only === undefined || s.name === only);
        if (only === undefined) this.builtins = MAX_TOOLS - room;
        for (const s of rebuild) {
            this.toolSets.delete(s.name);
            this.overBudget.delete(s.name);
        }
        const used = new Set([...this.toolSets.values()].flatMap((set) => set.exposed.map((e) => e.tool.name)));
        const tools: Tool[] = [];
        for (const client of rebuild) {
            const set = buildMcpTools(client, deps, (n) => used.has(n) || isTaken(n), this.choices.get(client.name)!);
            const kept = set.exposed.slice(0, Math.max(0, room - tools.length));
            if (kept.length < set.exposed.length) {
                this.overBudget.set(client.name, { server: client.name, count: set.exposed.length - kept.length, total: set.exposed.length });
            }
            for (const e of kept) {
                used.add(e.tool.name);
                tools.push(e.tool);
            }
            this.toolSets.set(client.name, { ...set, exposed: kept });
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
        this.overBudget.delete(name);
        await client.connect();
        return client;
    }
}

const UNTRUSTED = `未信任此文件夹，项目的 MCP 服务器不启动（删掉 ${TRUST_FILE} 里它的那一项，重启时会重新询问）`;

const deps: McpToolDeps = { authorize, redact, ensureToolPolicy };
const isRegistered = (name: string) => listTools().some((t) => t.name === name);

/** 读配置并建好管理器。配置文件坏了（多了个逗号……）不该让整个 agent 起不来：记下原因，不启动任何服务器。 */
export function createMcp(onLog?: (server: string, line: string) => void): McpManager {
    try {
        return new McpManager(loadMcpConfig(MCP_FILE), onLog);
    } catch (e) {
        const manager = new McpManager([], onLog);
        manager.configError = `${(e as Error).message}；本次不启动 MCP 服务器`;
        return manager;
    }
}

// 还能装几个：一次请求最多 128 个工具，注册表里已有的（内置工具等）先占位
const room = () => MAX_TOOLS - listTools().length;

// 每有一台服务器连上就重排一次：先注销所有 MCP 工具，再按配置顺序在名额之内重新注册。
// 这样先连上的服务器不会占掉配置里排在它前面的服务器的名额，请求里的工具顺序也总是配置顺序
function refreshTools(manager: McpManager): Tool[] {
    for (const s of manager.servers) for (const e of manager.toolsOf(s.name).exposed) unregisterTool(e.tool.name);
    const tools = manager.buildTools(deps, isRegistered, room());
    for (const tool of tools) registerTool(tool);
    return tools;
}

/**
 * 所有服务器在后台同时连接，不挡住输入：哪台连上，就把它的工具加进来（按配置顺序重排）。
 * 全部结束后把要提示的行（失败的服务器、没装下的工具等）交给 report。
 * 返回的 Promise 给第一次请求模型用：全部连完，或最多等 FIRST_REQUEST_WAIT_MS，以先到者为准；
 * 还没连上的服务器之后再加入，握手本身的时限不变（npx 冷启动要下载包）。
 */
export function startMcp(manager: McpManager, report: (lines: string[]) => void): Promise<void> {
    const all = manager.connectAll(() => {
        recordToolPolicies(refreshTools(manager).map((t) => t.name));
    }).then(() => report(mcpStartupMessages(manager)));
    return Promise.race([all, delay(FIRST_REQUEST_WAIT_MS)]);
}

/** /mcp reconnect NAME：停掉、注销旧工具、重新连接、注册新的工具列表（只用剩下的名额，不挤掉别的服务器）。 */
export async function reconnectMcp(manager: McpManager, name: string): Promise<string> {
    // 启动时的连接还没结束就重连，两次连接会抢同一个客户端、重复注册工具：先等它结束
    await manager.startup;
    for (const e of manager.toolsOf(name).exposed) unregisterTool(e.tool.name);
    const client = await manager.reconnect(name);
    for (const tool of manager.buildTools(deps, isRegistered, room(), name)) registerTool(tool);
    if (client.status !== 'connected') return `${name} 重连失败：${client.error}`;
    return `${name} 已重新连接（${manager.toolsOf(name).exposed.length} 个工具）`;
}

// 启动时要显示的行：每个失败的服务器一行，有工具没装下时再加一条提示
export function mcpStartupMessages(manager: McpManager): string[] {
    const lines = manager.servers.filter((s) => s.status === 'failed').map((s) => `MCP 服务器 ${s.name} 启动失败：${s.error}`);
    if (manager.configError) lines.unshift(manager.configError);
    return [...lines, ...manager.budgetLines()];
}

// 工具名里服务器那一段：不合法的字符换成 _（与 mcpToolName 相同的规则）
const namePrefix = (server: string) => `mcp_${server}_`.replace(/[^A-Za-z0-9_-]/gu, '_');

// /mcp 命令的输出：装不下时的提示；每台服务器的工具（改过名的注明原名）、每次请求的开销，再加最近 5 行日志。
// 服务器名要清洗时（"Azure MCP Server"）在标题里写一次前缀，不把每个工具都算作改名
/** 刚启动就敲 /mcp 时，和第一次请求模型一样最多等 3 秒还在连接的服务器，免得只看到「连接中…」；别的命令不等。 */
export async function mcpStatusWhenReady(manager: McpManager): Promise<string> {
    await Promise.race([manager.startup, delay(FIRST_REQUEST_WAIT_MS)]);
    return mcpStatusText(manager);
}

export function mcpStatusText(manager: McpManager): string {
    if (manager.configError) return manager.configError;
    if (manager.servers.length === 0) return '（没有已连接的 MCP 服务器；请在 .geekagent/mcp.json 中声明后重启）';
    if (manager.untrusted) return `${UNTRUSTED}：${manager.servers.map((s) => s.name).join('、')}`;
    const out = manager.budgetLines();
    for (const s of manager.servers) {
        const { exposed, skipped } = manager.toolsOf(s.name);
        if (s.status === 'connected') {
            const prefix = namePrefix(s.name);
            const cleaned = prefix === `mcp_${s.name}_` ? '' : `，名字前缀 ${prefix}`;
            out.push(`${s.name}（${exposed.length} 个工具${cleaned}）`);
            for (const e of exposed) {
                const renamed = e.tool.name !== prefix + e.original;
                out.push(`  ${e.tool.name}${renamed ? ` ← ${e.original}` : ''}`);
            }
            for (const k of skipped) out.push(`  （已跳过 ${k}：名字冲突）`);
            const left = manager.leftOut().find((l) => l.server === s.name);
            if (left) out.push(`  （另有 ${left.count} 个超出 ${MAX_TOOLS} 个的上限，没有交给模型）`);
            out.push(`  ${costText(toolChars(exposed.map((e) => e.tool)))}`);
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
