// Day 15：把服务器上的工具变成 Day 4 注册表里的 Tool：名字 mcp_<服务器>_<工具>，inputSchema 当参数模式，
// run 先问权限（外部程序的工具默认每次询问），再发一次 tools/call，把结果里的文字交回模型。
import { createHash } from 'node:crypto';
import { isObject, jsonText, MAX_JSON_DEPTH, tooDeep, type Json } from './json.ts';
import type { McpClient, McpToolInfo } from './mcp-client.ts';
import { authorize, ensureToolPolicy } from './permissions.ts';
import { normalizeSchema } from './schema.ts';
import { truncateOutput, type Tool } from './tools.ts';

// 一台服务器交给模型的工具：original 是服务器上的原名，调用时总用原名；skipped：改名后仍然重名、只好跳过的原名
export type McpToolSet = { exposed: { tool: Tool; original: string }[]; skipped: string[] };

// 按服务器列表的顺序起名，结果是确定的。used：已被占用的名字，起好的名字也记进去；wanted：按原名挑选（includeTools……）
export function buildMcpTools(client: McpClient, used: Set<string>, wanted: (tool: string) => boolean): McpToolSet {
    const set: McpToolSet = { exposed: [], skipped: [] };
    if (client.status !== 'connected') return set;
    for (const info of client.tools.filter((t) => wanted(t.name))) {
        const name = mcpToolName(client.name, info.name, used);
        if (name) set.exposed.push({ tool: makeTool(client, info, name), original: info.name });
        else set.skipped.push(info.name);
    }
    return set;
}

// 工具名 mcp_<服务器>_<工具>：不同服务器的同名工具不会撞车。OpenAI 只认 [a-zA-Z0-9_-]，别的字符换成 _
export const namePrefix = (server: string): string => safeName(`mcp_${server}_`);
const safeName = (text: string): string => text.replace(/[^A-Za-z0-9_-]/gu, '_');

function makeTool(client: McpClient, info: McpToolInfo, name: string): Tool {
    ensureToolPolicy(name, 'ask');   // GeekAgent.json 里可以按完整的工具名改成 allow 或 deny
    return {
        name,
        description: `[MCP:${client.name}] ${info.description || info.title || info.name}`,
        parameters: normalizeSchema(info.inputSchema, (text) => client.log(`${info.name}：${text}`)),
        authorizes: true,
        async run(args, signal) {
            const prompt = [`即将调用 MCP 工具：${name}（来自服务器 ${client.name}）`, ...promptDetails(info, args), '确认执行？'];
            if (!(await authorize(name, prompt.join('\n')))) return '调用已取消';
            return callMcpTool(client, info.name, args, signal);   // tools/call，结果变成文字（见下）
        },
    };
}

// —— 加固：长名字与重名、非文本内容、确认提示里的细节 ——
const RESULT_MAX_CHARS = 20_000;   // MCP 工具没有分页，上限比 read 的 2000 宽得多（truncateOutput 截断前先脱敏）

// 调用并把结果变成模型读的文字（convertResult）；工具报错（isError）变成异常，由 execTool 包成「工具执行失败：…」
export async function callMcpTool(client: McpClient, tool: string, args: Json, signal?: AbortSignal): Promise<string> {
    const { text, isError } = convertResult(await client.callTool(tool, args, signal));
    if (isError) throw new Error(text);
    return text;
}

// 结果的 content 是内容块的数组：文字块原样拼起来，其他块见 blockText。交给模型之前由 execTool 脱敏；
// 太长的才交给 truncateOutput（它要截断，所以先脱敏）：短结果不必在这里多脱敏一遍。
// 嵌套太深的结果不转换（String()、JSON.stringify 会撑爆调用栈，见 json.ts 的 tooDeep），当作工具报错
export function convertResult(result: unknown): { text: string; isError: boolean } {
    if (tooDeep(result)) return { text: `MCP 工具的结果嵌套超过 ${MAX_JSON_DEPTH} 层，没有转换`, isError: true };
    const body = isObject(result) ? result : {};
    const blocks: unknown[] = Array.isArray(body.content) ? body.content : [];
    const text = orFallback(blocks.map(blockText).join('\n'), blocks, body);
    return { text: text.length > RESULT_MAX_CHARS ? truncateOutput(text, RESULT_MAX_CHARS) : text, isError: body.isError === true };
}

// 名字 ≤ 64 个字符且不能重名：过长或重名时用前 55 个字符 + '_' + 8 位哈希；还重名就返回 undefined。起好的名字记进 used
export function mcpToolName(server: string, tool: string, used: Set<string>): string | undefined {
    const raw = namePrefix(server) + safeName(tool);
    const hash = () => createHash('sha1').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
    const name = raw.length <= 64 && !used.has(raw) ? raw : `${raw.slice(0, 55)}_${hash()}`;
    if (used.has(name)) return undefined;
    used.add(name);
    return name;
}

// 标注只是服务器自己的说法，仅供用户参考，从不改变权限策略
function promptDetails(info: McpToolInfo, args: Json): string[] {
    const hints = isObject(info.annotations) ? info.annotations : {};
    const title = typeof hints.title === 'string' ? hints.title : info.title;
    const lines: string[] = [];
    if (hints.readOnlyHint === true) lines.push('服务器声明：只读');
    if (hints.destructiveHint === true) lines.push('服务器声明：破坏性');
    if (title) lines.push(`标题：${jsonText(title)}`);   // 和参数值一样写成 JSON：标题里的换行成了 \n，冒充不了下面的「参数：」
    return [...lines, ...argLines(args)];
}

// 参数一个一行、按模型给的顺序：排在前面的长 content 藏不住后面的 path。值写成 JSON（字符串带引号，换行写成 \n），
// 一个值冒充不了另一行参数。值原样、不截断、不脱敏：长的那一行由 askPaged（input.ts）在问题里截短并注明全文多大，
// 回答 d 分页看的是这里的全文，答 y 之前每个字都看得到；有密钥时 authorize 补一行说明
function argLines(args: Json): string[] {
    const entries = Object.entries(args);
    if (entries.length === 0) return ['参数：无'];
    return ['参数：', ...entries.map(([key, value]) => `  ${/^[\w$.-]+$/.test(key) ? key : jsonText(key)}：${jsonText(value)}`)];
}

// 没有文字块时才用 structuredContent（有文字时它通常只是重复）；什么都没有时也给模型一句话
function orFallback(text: string, blocks: unknown[], body: Json): string {
    const hasText = blocks.some((b) => isObject(b) && b.type === 'text');
    if (!hasText && body.structuredContent !== undefined) text = [text, JSON.stringify(body.structuredContent)].filter(Boolean).join('\n');
    return text !== '' ? text : body.isError === true ? 'MCP 工具返回了错误' : '（无内容）';
}

function base64Bytes(data: unknown): number {
    return typeof data === 'string' ? Buffer.byteLength(data, 'base64') : 0;
}

const mime = (m: unknown) => (typeof m === 'string' && m !== '' ? ` ${m}` : '');

// 非文本内容只给占位说明：模型看不了图片，但应该知道这里有一张图、多大
function blockText(block: unknown): string {
    if (!isObject(block)) return '[不支持的内容：?]';
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
