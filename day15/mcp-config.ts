// Day 15：读 .geekagent/mcp.json（与 Claude Desktop 相同的 mcpServers 格式），以及服务器进程继承的环境。
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isObject } from './jsonrpc.js';
import { isSecretVar } from './redact.js';
import { quote } from './trust.js';

const DEFAULT_TIMEOUT_MS = 10_000;

export interface McpServerConfig {
    command: string;
    args: string[];
    env: Record<string, string>;
    cwd?: string;            // 已解析成绝对路径
    timeout: number;
    includeTools?: string[];     // 与 Gemini CLI 同名的字段：只把这些工具（服务器上的原名）交给模型
    excludeTools?: string[];     // 除了这些都交给模型；两个都写时先 include 再 exclude
}

// 一个条目坏了只影响它自己：config 为空时 error 说明原因
export interface McpEntry {
    name: string;
    config?: McpServerConfig;
    error?: string;
}

// ${NAME} 与 ${NAME:-默认值}；不递归，不带花括号的 $NAME 原样保留
export function expandVars(text: string): string {
    return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_all, name: string, fallback?: string) => {
        const value = process.env[name];
        if (fallback !== undefined) return value ? value : fallback;
        if (value === undefined) throw new Error(`环境变量 ${name} 未设置`);
        return value;
    });
}

function parseEntry(name: string, raw: unknown): McpServerConfig {
    const invalid = (detail: string) => new Error(`配置无效：${detail}`);
    if (name === '') throw invalid('服务器名不能为空');
    if (!isObject(raw)) throw invalid('条目必须是对象');
    if ((raw.type !== undefined && raw.type !== 'stdio') || (raw.url !== undefined && raw.command === undefined)) {
        throw invalid('只支持 stdio 服务器');
    }
    const { command, args = [], env = {}, cwd, timeout = DEFAULT_TIMEOUT_MS } = raw;
    if (typeof command !== 'string' || command === '') throw invalid('缺少 command');
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw invalid('args 必须是字符串数组');
    if (!isObject(env) || !Object.values(env).every((v) => typeof v === 'string')) throw invalid('env 必须是字符串值的对象');
    if (cwd !== undefined && typeof cwd !== 'string') throw invalid('cwd 必须是字符串');
    if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0) throw invalid('timeout 必须是正整数（毫秒）');
    const { includeTools, excludeTools } = raw;
    for (const [field, list] of [['includeTools', includeTools], ['excludeTools', excludeTools]] as const) {
        if (list !== undefined && (!Array.isArray(list) || !list.every((t) => typeof t === 'string'))) {
            throw invalid(`${field} 必须是字符串数组（工具在服务器上的原名）`);
        }
    }
    return {
        command: expandVars(command),
        args: (args as string[]).map((a) => expandVars(a)),
        env: Object.fromEntries(Object.entries(env as Record<string, string>).map(([k, v]) => [k, expandVars(v)])),
        cwd: cwd === undefined ? undefined : resolve(expandVars(cwd)),
        timeout,
        // 没写的字段不出现在结果里
        ...(includeTools === undefined ? {} : { includeTools: includeTools as string[] }),
        ...(excludeTools === undefined ? {} : { excludeTools: excludeTools as string[] }),
    };
}

// JSON.parse 只说字符偏移（英文的 at position 88）；换算成编辑器里能跳过去的 文件:行:列
function syntaxError(file: string, text: string, e: Error): string {
    const offset = Number(/position (\d+)/.exec(e.message)?.[1] ?? text.length);
    const lines = text.slice(0, offset).split('\n');
    return `${file}:${lines.length}:${lines.at(-1)!.length + 1} 不是合法的 JSON（常见原因：最后一项后面多了逗号、键名没用双引号）`;
}

// 文件不存在 → 没有服务器；整个文件坏了 → 抛错（调用方报告后不启动任何服务器）
export function loadMcpConfig(file: string): McpEntry[] {
    let data: unknown;
    let text = '';
    try {
        text = readFileSync(file, 'utf8');
        data = JSON.parse(text);
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        const detail = e instanceof SyntaxError ? syntaxError(file, text, e) : (e as Error).message;
        throw new Error(`读取 MCP 配置失败：${detail}`);
    }
    const servers = isObject(data) ? data.mcpServers : undefined;
    if (!isObject(servers)) throw new Error('读取 MCP 配置失败：缺少 mcpServers 对象');
    return Object.entries(servers).map(([name, raw]) => {
        try {
            return { name, config: parseEntry(name, raw) };
        } catch (e) {
            return { name, error: (e as Error).message };
        }
    });
}

// 服务器继承 agent 的环境，但去掉像密钥的变量（名字像密钥或值是带密码的 URL，与 Day 8 脱敏同一条规则）：模型 API Key 不该流到第三方程序里；
// 配置里的 env 叠加在上面，用户明确写出的变量（哪怕像密钥）照传
export function serverEnv(config: McpServerConfig): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
        if (value !== undefined && !isSecretVar(name, value)) env[name] = value;
    }
    return { ...env, ...config.env };
}

// 信任问题里的行：每台配置有效的服务器一行，写出它真正会运行的命令（变量已展开）、工作目录和额外的环境变量
export function mcpTrustNeeds(entries: McpEntry[]): string[] {
    return entries.flatMap(({ name, config }) => {
        if (!config) return [];   // 配置无效的条目根本不会启动
        let line = `启动 MCP 服务器 ${quote(name)}：${[config.command, ...config.args].map(quote).join(' ')}`;
        if (config.cwd) line += `（工作目录 ${quote(config.cwd)}）`;
        const env = Object.entries(config.env).map(([k, v]) => quote(`${k}=${v}`));
        if (env.length) line += `（环境变量 ${env.join(' ')}）`;
        return [line];
    });
}
