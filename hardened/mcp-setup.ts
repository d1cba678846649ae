// Day 15：把 MCP 接进 Agent：读 .geekagent/mcp.json，所有服务器同时连接，把它们的工具注册进 Day 4 的注册表——
// 模型看到的仍是一份普通的工具清单；退出时全部停掉。重连、工具数的上限、/mcp 和面板上的文字在分隔线以下。
import { budgetNotice, costText, MAX_TOOLS, toolChars, toolChoice, type LeftOut } from './mcp-budget.ts';
import { McpClient } from './mcp-client.ts';
import { loadMcpConfig, mcpTrustNeeds, type McpEntry } from './mcp-config.ts';
import { buildMcpTools, namePrefix, type McpToolSet } from './mcp-tools.ts';
import { recordToolPolicies } from './permissions.ts';
import { listTools, registerTool, unregisterTool, type Tool } from './tools.ts';
import { quote, TRUST_FILE } from './trust.ts';

// MCP 工具进出的注册表：agent 里是 tools.ts 那一份，测试换成假的
export type Registry = { names(): string[]; register(tool: Tool): void; unregister(name: string): void };

// 读 mcp.json、建好管理器；MCP 工具注册进 tools.ts 的注册表
export function createMcp(onLog?: (server: string, line: string) => void): McpManager {
    const [entries, configError] = readConfig('.geekagent/mcp.json');
    return new McpManager(entries, { names: () => listTools().map((t) => t.name), register: registerTool, unregister: unregisterTool }, onLog, configError);
}

export class McpManager {
    readonly servers: McpClient[];
    private readonly toolSets = new Map<string, McpToolSet>();       // 每台服务器交给模型的工具
    private startup: Promise<unknown> = Promise.resolve();
    private readonly registry: Registry;
    readonly configError: string;

    // onLog：纯文本前端用它回显服务器的 stderr。configError：mcp.json 整个读不了的原因，启动时和 /mcp 里显示
    constructor(entries: McpEntry[], registry: Registry, onLog?: (server: string, line: string) => void, configError = '') {
        this.registry = registry;
        this.configError = configError;
        this.servers = entries.map((e) => new McpClient(e, onLog));
    }

    // 在后台连接，不挡住输入；全部连完把要提示的行（失败的服务器……）交给 report。返回的 Promise 给第一次请求模型等
    start(trusted: boolean, report: (lines: string[]) => void): Promise<void> {
        this.untrustedFolder = !trusted;   // 不信任这个文件夹：一台也不启动
        const connected = trusted ? this.connectAll(recordToolPolicies) : Promise.resolve();
        void connected.then(() => report(mcpStartupMessages(this)));
        return this.ready();
    }

    // 所有服务器同时连接（三台各要 1 秒握手，总共也只等 1 秒左右），每连完一台就重排一次工具
    connectAll(onRefresh: (names: string[]) => void = () => {}): Promise<void> {
        this.untrustedFolder = false;   // 连接就是信任了这个文件夹（不信任时 start 不会走到这里）
        this.startup = Promise.all(this.servers.map(async (s) => {
            await s.connect();
            onRefresh(this.refresh());
        }));
        return this.startup.then(() => {});
    }

    // 注销 → 生成 → 注册，按配置顺序：先连上的不会占掉排在它前面的服务器的名额，请求里的顺序也总是配置顺序。返回注册的名字
    refresh(servers = this.servers): string[] {
        for (const s of servers) for (const e of this.toolsOf(s.name).exposed) this.registry.unregister(e.tool.name);
        const used = new Set(this.registry.names());
        for (const s of servers) {
            const set = this.withinLimit(s.name, buildMcpTools(s, used, toolChoice(s.entry.config)));
            this.toolSets.set(s.name, set);
            for (const e of set.exposed) this.registry.register(e.tool);
        }
        return servers.flatMap((s) => this.toolsOf(s.name).exposed.map((e) => e.tool.name));
    }

    async stopAll(): Promise<void> {
        await Promise.all(this.servers.map((s) => s.stop()));
    }

    // —— 加固：信任、第一次请求前的等待、重连、一次请求 128 个工具的上限 ——
    private untrustedFolder: boolean | null = null;   // null：信任问题还没答完（面板据此不说「连接中…」）
    private readonly overLimit = new Map<string, LeftOut>();         // 超出上限、没交给模型的

    get untrusted(): boolean {
        return this.untrustedFolder === true;
    }

    get awaitingTrust(): boolean {
        return this.untrustedFolder === null;
    }

    // 信任问题里列出的、这些服务器会运行的命令
    get trustNeeds(): string[] {
        return mcpTrustNeeds(this.servers.map((s) => s.entry));
    }

    toolsOf(name: string): McpToolSet {
        return this.toolSets.get(name) ?? { exposed: [], skipped: [] };
    }

    // 第一次请求模型和刚启动就敲 /mcp 时，等还在连接的服务器，从启动算起最多 10 秒（握手本身至少等 30 秒，见 mcp-client.ts）：
    // 机器忙时服务器晚到几秒，模型第一轮也看得到它的工具；10 秒里还没握完手的（npx 还在下载包），随后再加入
    private firstWait?: Promise<void>;
    ready(): Promise<void> {
        this.firstWait ??= Promise.race([this.startup, new Promise((resolve) => setTimeout(resolve, FIRST_REQUEST_WAIT_MS).unref())]).then(() => {});
        return this.firstWait;
    }

    // 每一轮请求模型之前：先等上面的第一次等待；之后还在连接的服务器（握手设得长、npx 还在下载包）这一轮没有工具，
    // 说一句是哪几台，不让模型悄悄少了工具、用户以为它们的工具不管用。名字经 quote：换行、控制字符伪造不了别的行
    async beforeTurn(say: (line: string) => void): Promise<void> {
        await this.ready();
        const pending = this.untrusted ? [] : this.servers.filter((s) => s.status === 'connecting');
        if (pending.length > 0) say(`${pending.map((s) => quote(s.name)).join('、')} 还在连接，这一轮没有${pending.length > 1 ? '它们' : '它'}的工具（/mcp 看状态）`);
    }

    // /mcp reconnect NAME：停掉、重新连接，只换这一台的工具（只用剩下的名额，不挤掉别的服务器）
    async reconnect(name: string): Promise<string> {
        const client = this.servers.find((s) => s.name === name);
        if (!client) throw new Error(`没有名为 ${name} 的 MCP 服务器`);
        if (this.untrustedFolder) throw new Error(UNTRUSTED);
        await this.startup;   // 启动时的连接还没结束就重连，两次连接会抢同一个客户端
        await client.stop();
        await client.connect();
        this.refresh([client]);
        if (client.status !== 'connected') return `${name} 重连失败：${client.error}`;
        return `${name} 已重新连接（${this.toolsOf(name).exposed.length} 个工具）`;
    }

    // OpenAI 一次请求最多带 128 个工具（内置的也算），超过就整轮 400：注册表里已有的先占位，装不下的不交给模型
    private withinLimit(server: string, set: McpToolSet): McpToolSet {
        const room = Math.max(0, MAX_TOOLS - this.registry.names().length);
        this.overLimit.delete(server);
        if (set.exposed.length <= room) return set;
        this.overLimit.set(server, { server, count: set.exposed.length - room, total: set.exposed.length });
        return { ...set, exposed: set.exposed.slice(0, room) };
    }

    /** 没装下的服务器，按配置顺序。 */
    leftOut(): LeftOut[] {
        return this.servers.flatMap((s) => this.overLimit.get(s.name) ?? []);
    }

    /** 有工具没装下时的那条提示（启动时和 /mcp 里都用）；都装下了就是空的。内置：注册表里 MCP 之外的工具。 */
    budgetLines(): string[] {
        const mcp = this.servers.reduce((n, s) => n + this.toolsOf(s.name).exposed.length, 0);
        return this.overLimit.size === 0 ? [] : [budgetNotice(this.leftOut(), this.registry.names().length - mcp)];
    }
}

const FIRST_REQUEST_WAIT_MS = 10_000;
const UNTRUSTED = `未信任此文件夹，项目的 MCP 服务器不启动（重启时会再问；在终端里答过 n 的，删掉 ${TRUST_FILE} 里它的那一项才会再问）`;

// mcp.json 坏了（多了个逗号……）不该让 agent 起不来：记下原因，不启动任何服务器
function readConfig(file: string): [McpEntry[], string] {
    try {
        return [loadMcpConfig(file), ''];
    } catch (e) {
        return [[], `${(e as Error).message}；本次不启动 MCP 服务器`];
    }
}

// 启动时要显示的行：mcp.json 读不了的原因，每个失败的服务器一行，有工具没装下时再加一条提示
export function mcpStartupMessages(manager: McpManager): string[] {
    const lines = manager.servers.filter((s) => s.status === 'failed').map((s) => `MCP 服务器 ${s.name} 启动失败：${s.error}`);
    if (manager.configError) lines.unshift(manager.configError);
    return [...lines, ...manager.budgetLines()];
}

// /mcp 的输出：装不下时的提示；每台服务器的工具（改过名的注明原名）、每次请求的开销，再加最近 5 行日志（调用栈不算）。
// 服务器名要清洗时（"Azure MCP Server"）在标题里写一次前缀，不把每个工具都算作改名
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
        for (const line of s.recentLog) out.push(`    ${line}`);
    }
    return out.join('\n');
}

// 面板的 MCP 一行：demo(2) fs(14)
export function mcpPanelText(manager: McpManager): string {
    if (manager.servers.length === 0) return '无';
    if (manager.awaitingTrust) return '等待信任回答';
    if (manager.untrusted) return '未信任，未启动';
    if (manager.servers.some((s) => s.status === 'connecting')) return '连接中…';
    return manager.servers.map((s) => {
        if (s.status === 'connected') return `${s.name}(${manager.toolsOf(s.name).exposed.length})`;
        return `${s.name}(${s.status === 'failed' ? '失败' : '已退出'})`;
    }).join(' ');
}
