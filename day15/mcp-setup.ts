// Day 15：把 MCP 接进 Agent。读 .geekagent/mcp.json（格式同 Claude Desktop：{"mcpServers": {名字: {command, args, env}}}），
// 信任问题答 y 之后同时连上每台服务器，把它们的工具以 mcp_<服务器>_<工具> 注册进第 4 天的注册表：模型看到的仍是一份普通的工具清单。
// 退出时停掉全部服务器。
import fs from 'node:fs';
import { McpServer, type McpServerConfig, type McpToolInfo } from './mcp-client.ts';
import { ensureToolPolicy } from './permissions.ts';
import { confirm, registerTool, type Tool } from './tools.ts';
import { RUNS } from './trust.ts';

export const MCP_FILE = '.geekagent/mcp.json';

export interface McpConfig {
    servers: { name: string; config: McpServerConfig }[];
    problems: string[];   // 写错的地方，一条一句，启动时显示：写错的一台只影响它自己
}

const servers: McpServer[] = [];
const registered = new Map<McpServer, string[]>();   // 每台服务器注册了哪些工具（/mcp 显示）

/** 没有这个文件就是不用 MCP；读不了、不是 JSON 时一台也不启动，说一句原因。这个文件 Agent 只读不写。 */
export function readMcpConfig(): McpConfig {
    const config: McpConfig = { servers: [], problems: [] };
    const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
    let entries;
    try {
        entries = JSON.parse(fs.readFileSync(MCP_FILE, 'utf8')).mcpServers;
        if (!isObject(entries)) throw new Error('没有 mcpServers 对象');
    } catch (e) {
        const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
        if (!missing) config.problems.push(`读不了 ${MCP_FILE}：${(e as Error).message}（这次不启动 MCP 服务器）`);
        return config;
    }
    const strings = (list: unknown) => Array.isArray(list) && list.every((v) => typeof v === 'string');
    for (const [name, raw] of Object.entries<any>(entries)) {
        const { command, args = [], env = {} } = raw ?? {};
        if (typeof command === 'string' && command && strings(args) && isObject(env) && strings(Object.values(env))) {
            config.servers.push({ name, config: { command, args, env } });
        } else config.problems.push(`${MCP_FILE} 里的 ${quote(name)} 不对：command 要是字符串，args 是字符串数组，env 的值都是字符串`);
    }
    return config;
}

/**
 * 信任问题里 mcp.json 的那几项，每台服务器一项（问、记回答、转义控制字符、把你自己的密钥那一段写成 ‹名字›，都是第 8 天 trust.ts 的事）。
 * mcp.json 可以跟着克隆来的仓库一起到来，服务器以你的用户权限运行，所以答 y 之前看到的就是真正会运行的：命令、参数和 env 的值都原样。
 * env 里会让程序运行别的代码的变量（NODE_OPTIONS、GIT_*……）各多一项说明（RUNS，和 .env 的变量同一张表）。
 * 信任记录的 HMAC 按这些原文算：换了命令、改了一个值，下次启动会再问。
 */
export function mcpTrustItems(config: McpConfig): string[] {
    return config.servers.flatMap(({ name, config: c }) => {
        const env = Object.entries(c.env).map(([k, v]) => quote(`${k}=${v}`));
        const withEnv = env.length ? `（环境变量 ${env.join(' ')}）` : '';
        const runs = Object.keys(c.env).flatMap((k) => RUNS.filter(([pattern]) => pattern.test(k)).slice(0, 1)
            .map(([, what]) => `（服务器 ${quote(name)}）${k} 会让程序运行别的代码：${what}`));
        return [`启动 MCP 服务器 ${quote(name)}：${[c.command, ...c.args].map(quote).join(' ')}${withEnv}`, ...runs];
    });
}

// 普通的词原样；带空格、引号等的写成 JSON 字符串，看得出一个参数从哪到哪
const quote = (text: string) => (/^[\w./:@%+=,-]+$/.test(text) ? text : JSON.stringify(text));

/**
 * 信任之后调用：所有服务器同时连接（每个请求最多等 10 秒，三台慢的也只等一次 10 秒），再按 mcp.json 的顺序注册工具，
 * 请求里的工具顺序每次都一样。返回要告诉你的话（连接失败的、名字冲突的），每条一句。
 */
export async function startMcp(config: McpConfig): Promise<string[]> {
    for (const { name, config: c } of config.servers) servers.push(new McpServer(name, c));
    const failed = await Promise.all(servers.map((s) => s.connect().then(() => '', (e: Error) => s.failure || e.message)));
    await Promise.all(servers.filter((_, i) => failed[i]).map((s) => s.stop()));   // 握手超时的还活着：停掉
    const skipped = servers.flatMap((s) => registerServerTools(s));
    return [...servers.flatMap((s, i) => (failed[i] ? [`MCP 服务器 ${s.name} 连接失败：${failed[i]}`] : [])), ...skipped];
}

/** 退出时调用：全部同时停，不留进程。 */
export async function stopMcp(): Promise<void> {
    await Promise.all(servers.map((s) => s.stop()));
}

/** /mcp：每台服务器的工具，或者它为什么不能用。 */
export function mcpStatus(): string {
    if (servers.length === 0) return `没有 MCP 服务器：在 ${MCP_FILE} 里声明，重启生效（文件夹不被信任时不启动）`;
    return servers.map((s) => {
        const names = registered.get(s) ?? [];
        return s.failure ? `× ${s.name}：${s.failure}` : [`${s.name}（${names.length} 个工具）`, ...names.map((n) => `  ${n}`)].join('\n');
    }).join('\n');
}

/** 一台服务器的每个工具变成注册表里的一个 Tool。返回没能注册的（名字冲突），每个一句。 */
function registerServerTools(server: McpServer): string[] {
    const names: string[] = [];
    const skipped: string[] = [];
    for (const info of server.tools) {
        // 加上服务器名，两台服务器都有 search 也不撞车。OpenAI 只认 [a-zA-Z0-9_-]，别的字符换成 _；调用服务器时总用原名
        const name = `mcp_${server.name}_${info.name}`.replace(/[^A-Za-z0-9_-]/g, '_');
        try {
            registerTool(mcpTool(server, info, name));
        } catch (e) {
            skipped.push(`没有注册 ${server.name} 的工具 ${JSON.stringify(info.name)}：${(e as Error).message}`);
            continue;
        }
        // 新工具要带一条默认策略：第 8 天的权限层拒绝没有策略的工具。MCP 工具是别人写的程序、以你的身份运行，它做什么只有它自己的
        // 说明可依，所以默认 ask，每次调用先给你看参数。想放行就在 GeekAgent.json 里按工具名（或 mcp_demo_*）写 allow
        ensureToolPolicy(name, 'ask');
        names.push(name);
    }
    registered.set(server, names);
    return skipped;
}

function mcpTool(server: McpServer, info: McpToolInfo, name: string): Tool {
    return {
        name,
        description: `[MCP:${server.name}] ${info.description ?? info.name}`,
        // 服务器给的 inputSchema 就是 JSON Schema，原样当参数模式；缺了或者根不是 object 时给一个空的
        parameters: info.inputSchema?.type === 'object' ? info.inputSchema : { type: 'object', properties: {} },
        async run(args, signal) {
            // 参数一个一行，值写成 JSON：值里的换行显示成 \n，冒充不了下一行参数。不截断、不脱敏：答 y 之前每个字都看得到
            const shown = Object.entries(args).map(([k, v]) => `  ${/^[\w.-]+$/.test(k) ? k : JSON.stringify(k)}：${JSON.stringify(v)}`);
            const head = `即将调用 MCP 工具 ${name}（来自服务器 ${server.name}）`;   // 只用清洗过的名字：服务器起的原名可以带换行
            if (!(await confirm([head, shown.length ? '参数：' : '参数：无', ...shown, '确认执行？'].join('\n')))) return '已取消调用';
            return server.call(info.name, args, signal);
        },
    };
}
