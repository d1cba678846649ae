// Day 15：读 .geekagent/mcp.json，格式与 Claude Desktop 相同：{ "mcpServers": { 名字: { command, args, env } } }。
import { resolve } from 'node:path';
import { CONFIG_CAP, readRegularFile } from './regular-file.ts';
import { isObject } from './json.ts';
import { brokenJson } from './storage.ts';
import { quote, quoteEnv, trustItem } from './trust.ts';

const DEFAULT_TIMEOUT_MS = 10_000;   // 单个请求的等待上限：服务器不回应时按失败处理，不让 agent 一直挂着

// cwd 已解析成绝对路径；includeTools / excludeTools（字段名与 Gemini CLI 相同）按服务器上的原名挑工具，见 mcp-budget.ts
export type McpServerConfig = { command: string; args: string[]; env: Record<string, string>; cwd?: string; timeout: number; includeTools?: string[]; excludeTools?: string[] };

export type McpEntry = { name: string; config?: McpServerConfig; error?: string };   // 写错的条目只影响自己：error 说明原因

// 文件不存在 → 没有服务器；整个文件坏了 → 抛错（调用方报告后不启动任何服务器）
export function loadMcpConfig(file: string): McpEntry[] {
    const data = readJson(file);
    if (data === undefined) return [];
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

// —— 加固：读文件时的错误、逐个字段检查、变量展开、信任问题里的命令 ——
// 一个条目：command 必填，args、env、cwd、timeout 可选，字符串里可以写 ${环境变量}
function parseEntry(name: string, raw: unknown): McpServerConfig {
    const { command, args, env, cwd, timeout, includeTools, excludeTools } = checkEntry(name, raw);
    return {
        command: expandVars(command),
        args: args.map((a) => expandVars(a)),
        env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, expandVars(v)])),
        cwd: cwd === undefined ? undefined : resolve(expandVars(cwd)),
        timeout,
        // 没写的字段不出现在结果里
        ...(includeTools === undefined ? {} : { includeTools }),
        ...(excludeTools === undefined ? {} : { excludeTools }),
    };
}

// 文件不存在时返回 undefined；读不了、不是合法 JSON 时抛错
function readJson(file: string): unknown {
    let text = '';
    try {
        text = readRegularFile(file, CONFIG_CAP);   // 不是普通文件、超过上限的，和写坏了的一样报告
        return JSON.parse(text);
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        const detail = e instanceof SyntaxError ? brokenJson(file, text, e) : (e as Error).message;   // 文件:行:列、中文原因和提示
        throw new Error(`读取 MCP 配置失败：${detail}`);
    }
}

// 写错的字段说清是哪一个：原因显示在启动提示和 /mcp 里。返回的是补上默认值、还没展开变量的条目
function checkEntry(name: string, raw: unknown): McpServerConfig {
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
    for (const field of ['includeTools', 'excludeTools'] as const) {
        const list = raw[field];
        if (list !== undefined && (!Array.isArray(list) || !list.every((t) => typeof t === 'string'))) {
            throw invalid(`${field} 必须是字符串数组（工具在服务器上的原名）`);
        }
    }
    const { includeTools, excludeTools } = raw as Partial<McpServerConfig>;
    return { command, args, env, cwd, timeout, includeTools, excludeTools } as McpServerConfig;
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

// 信任问题里的行：每台配置有效的服务器一行，写出它真正会运行的命令、工作目录和额外的环境变量（变量已展开，都显示原值）；
// env 里会让程序运行别的代码的变量（NODE_OPTIONS……），下面各多一行说它做什么
export function mcpTrustNeeds(entries: McpEntry[]): string[] {
    return entries.flatMap(({ name, config }) => {
        if (!config) return [];   // 配置无效的条目根本不会启动
        let line = `启动 MCP 服务器 ${quote(name)}：${[config.command, ...config.args].map(quote).join(' ')}`;
        if (config.cwd) line += `（工作目录 ${quote(config.cwd)}）`;
        const env = Object.entries(config.env);
        if (env.length) line += `（环境变量 ${env.map(([k, v]) => quoteEnv(k, v)).join(' ')}）`;
        return [trustItem(line, env.map(([k]) => k))];
    });
}
