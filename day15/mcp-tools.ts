// Day 15：把一台服务器的工具变成 Day 4 注册表里的 Tool：起名字、规范输入模式、转换调用结果、确认提示。
import { createHash } from 'node:crypto';
import { isObject, type Json } from './jsonrpc.js';
import { cut, type McpClient, type McpToolInfo } from './mcp-client.js';
import { sanitizeSchema } from './schema.js';
import { truncateOutput, type Tool } from './tools.js';

const RESULT_MAX_CHARS = 20_000;   // MCP 工具没有分页，上限比 read 的 2000 宽得多
const PROMPT_ARGS_CHARS = 300;

// OpenAI 要求 ^[a-zA-Z0-9_-]{1,64}$ 且不重名；过长或重名时用 55 个字符 + '_' + 8 位哈希
export function mcpToolName(server: string, tool: string, taken: (name: string) => boolean): string | undefined {
    const raw = `mcp_${server}_${tool}`.replace(/[^A-Za-z0-9_-]/gu, '_');
    if (raw.length <= 64 && !taken(raw)) return raw;
    const hash = createHash('sha1').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
    const short = `${raw.slice(0, 55)}_${hash}`;
    return taken(short) ? undefined : short;
}

// 复制一份再改，不动服务器的对象；根必须是带 properties 的 object，否则 OpenAI 拒绝整个请求。
// 根以下整棵树交给 sanitizeSchema
export function normalizeSchema(schema: unknown, note: (text: string) => void): Json {
    if (!isObject(schema)) return { type: 'object', properties: {} };
    const { $schema: _ignored, ...out } = schema;
    if (out.type === undefined || (Array.isArray(out.type) && out.type.includes('object'))) out.type = 'object';
    if (out.type !== 'object') {
        note('不可用的输入模式');
        return { type: 'object', properties: {} };
    }
    const properties: Json = {};
    for (const [key, value] of Object.entries(isObject(out.properties) ? out.properties : {})) {
        if (typeof value === 'boolean') properties[key] = {};
        else if (isObject(value)) properties[key] = value;
    }
    out.properties = properties;
    const required = Array.isArray(out.required)
        ? out.required.filter((r): r is string => typeof r === 'string' && Object.hasOwn(properties, r))
        : [];
    if (required.length > 0) out.required = required;
    else delete out.required;
    return sanitizeSchema(out);
}

function base64Bytes(data: unknown): number {
    return typeof data === 'string' ? Buffer.byteLength(data, 'base64') : 0;
}

// 非文本内容只给占位说明：模型看不了图片，但应该知道这里有一张图、多大
function blockText(block: unknown): string {
    if (!isObject(block)) return '[不支持的内容：?]';
    const mime = (m: unknown) => (typeof m === 'string' && m !== '' ? ` ${m}` : '');
    switch (block.type) {
        case 'text':
            return typeof block.text === 'string' ? block.text : '';
        case 'image':
            return `[图片${mime(block.mimeType)}，${base64Bytes(block.data)} 字节]`;
        case 'audio':
            return `[音频${mime(block.mimeType)}，${base64Bytes(block.data)} 字节]`;
        case 'resource_link':
            return `[资源链接 ${String(block.name ?? '')} ${String(block.uri ?? '')}${mime(block.mimeType)}]`;
        case 'resource': {
            const res = isObject(block.resource) ? block.resource : {};
            if (typeof res.text === 'string') return `[资源 ${String(res.uri ?? '')}]\n${res.text}`;
            return `[资源 ${String(res.uri ?? '')}${mime(res.mimeType)}，${base64Bytes(res.blob)} 字节]`;
        }
        default:
            return `[不支持的内容：${String(block.type)}]`;
    }
}

// 文本块原样，其他块用占位；没有文本块时才用 structuredContent（有文本时它通常只是重复）
export function convertResult(result: unknown): { text: string; isError: boolean } {
    const body = isObject(result) ? result : {};
    const blocks: unknown[] = Array.isArray(body.content) ? body.content : [];
    const parts = blocks.map(blockText);
    const hasText = blocks.some((b) => isObject(b) && b.type === 'text');
    if (!hasText && body.structuredContent !== undefined) parts.push(JSON.stringify(body.structuredContent));
    const isError = body.isError === true;
    let text = parts.join('\n');
    if (text === '') text = isError ? 'MCP 工具返回了错误' : '（无内容）';
    return { text: truncateOutput(text, RESULT_MAX_CHARS), isError };
}

// 调用并转换；isError 的结果变成异常，由 execTool 包成"工具执行失败：…"
export async function callMcpTool(client: McpClient, tool: string, args: Json, signal?: AbortSignal): Promise<string> {
    const { text, isError } = convertResult(await client.callTool(tool, args, signal));
    if (isError) throw new Error(text);
    return text;
}

export interface McpToolDeps {
    authorize(tool: string, prompt: string): Promise<boolean>;
    redact(text: string): string;
    ensureToolPolicy(tool: string, policy: 'ask'): void;
}

// 一台服务器交给模型的工具；original 是服务器上的原名，调用时总用原名
export interface ExposedTool {
    tool: Tool;
    original: string;
}

export interface McpToolSet {
    exposed: ExposedTool[];
    skipped: string[];       // 改名后仍然冲突、只好跳过的原名
}

// 按服务器内的列表顺序命名，所以结果是确定的。taken：已被占用的名字（内置工具、技能工具、其他服务器）；
// wanted：按原名挑选（mcp.json 的 includeTools / excludeTools），没选中的不命名、不出现在任何地方
export function buildMcpTools(
    client: McpClient, deps: McpToolDeps, taken: (name: string) => boolean, wanted: (tool: string) => boolean,
): McpToolSet {
    const set: McpToolSet = { exposed: [], skipped: [] };
    if (client.status !== 'connected') return set;
    const mine = new Set<string>();
    for (const info of client.tools.filter((t) => wanted(t.name))) {
        const name = mcpToolName(client.name, info.name, (n) => mine.has(n) || taken(n));
        if (!name) {
            set.skipped.push(info.name);
            client.log(`工具 ${info.name} 的名字与已有工具冲突，已跳过`);
            continue;
        }
        mine.add(name);
        deps.ensureToolPolicy(name, 'ask');
        set.exposed.push({ tool: makeTool(client, info, name, deps), original: info.name });
    }
    return set;
}

function makeTool(client: McpClient, info: McpToolInfo, name: string, deps: McpToolDeps): Tool {
    const hints = isObject(info.annotations) ? info.annotations : {};
    const title = typeof hints.title === 'string' ? hints.title : info.title;
    return {
        name,
        description: `[MCP:${client.name}] ${info.description || info.title || info.name}`,
        parameters: normalizeSchema(info.inputSchema, (text) => client.log(`${info.name}：${text}`)),
        authorizes: true,
        async run(args, signal) {
            // 标注只是服务器自己的说法，仅供用户参考，从不改变权限策略
            const lines = [`即将调用 MCP 工具：${name}（来自服务器 ${client.name}）`];
            if (hints.readOnlyHint === true) lines.push('服务器声明：只读');
            if (hints.destructiveHint === true) lines.push('服务器声明：破坏性');
            if (title) lines.push(`标题：${title}`);
            // 先脱敏再截断：截断在密钥中间会让脱敏认不出来
            lines.push(`参数：${cut(deps.redact(JSON.stringify(args)), PROMPT_ARGS_CHARS)}`, '确认执行？');
            if (!(await deps.authorize(name, deps.redact(lines.join('\n'))))) return '调用已取消';
            return callMcpTool(client, info.name, args, signal);
        },
    };
}
