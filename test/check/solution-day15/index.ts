// 一个学习者照第 15 天的章节自己写的最小 Agent：一问一答的循环、流式的工具调用、.geekagent/mcp.json 里的 MCP 服务器。
// 没有确认、没有信任问题、没有加固：npm run check -- 15 test/check/solution-day15 --only 15 用它证明检查不依赖本仓库的写法。
import fs from 'node:fs';
import readline from 'node:readline';
import { McpServer } from './mcp.js';

const BASE_URL = process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1';
const MODEL = process.env.OPENAI_MODEL ?? 'gpt-4o-mini';

type Call = { id: string; type: 'function'; function: { name: string; arguments: string } };
type Tool = { name: string; description: string; parameters: any; run: (args: any) => Promise<string> };

const tools = new Map<string, Tool>();
const servers: McpServer[] = [];

async function startMcp(): Promise<void> {
    const file = '.geekagent/mcp.json';
    if (!fs.existsSync(file)) return;
    const config = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const [name, s] of Object.entries<any>(config.mcpServers ?? {})) {
        const server = new McpServer(name, s.command, s.args, s.env);
        servers.push(server);
        try {
            await server.connect();
        } catch (e) {
            console.log(`MCP 服务器 ${name} 连接失败：${(e as Error).message}`);
            continue;
        }
        for (const t of server.tools) {
            const full = `mcp_${name}_${t.name}`;   // 模型看到的名字；调用服务器时用原名 t.name
            tools.set(full, {
                name: full,
                description: t.description ?? '',
                parameters: t.inputSchema ?? { type: 'object', properties: {} },
                run: (args) => server.call(t.name, args),
            });
        }
    }
}

// 流式请求：正文边到边打印，工具调用按 index 把分块的参数拼起来
async function complete(messages: any[]): Promise<{ content: string; calls: Call[] }> {
    const list = [...tools.values()].map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
    const res = await fetch(`${BASE_URL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
        body: JSON.stringify({ model: MODEL, messages, stream: true, ...(list.length ? { tools: list } : {}) }),
    });
    if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}：${await res.text()}`);
    let content = '';
    const calls: Call[] = [];
    let buffer = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let at;
        while ((at = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, at).trim();
            buffer = buffer.slice(at + 1);
            if (!line.startsWith('data:') || line === 'data: [DONE]') continue;
            const delta = JSON.parse(line.slice(5)).choices?.[0]?.delta ?? {};
            if (delta.content) {
                content += delta.content;
                process.stdout.write(delta.content);
            }
            for (const d of delta.tool_calls ?? []) {
                calls[d.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
                if (d.id) calls[d.index].id = d.id;
                if (d.function?.name) calls[d.index].function.name += d.function.name;
                if (d.function?.arguments) calls[d.index].function.arguments += d.function.arguments;
            }
        }
    }
    if (content) process.stdout.write('\n');
    return { content, calls: calls.filter(Boolean) };
}

async function runTool(call: Call): Promise<string> {
    const tool = tools.get(call.function.name);
    if (!tool) return `未知工具：${call.function.name}`;
    try {
        return await tool.run(JSON.parse(call.function.arguments || '{}'));
    } catch (e) {
        return `工具执行失败：${(e as Error).message}`;
    }
}

const messages: any[] = [{ role: 'system', content: '你是一个编程助手。' }];

async function turn(input: string): Promise<void> {
    messages.push({ role: 'user', content: input });
    for (let step = 0; step < 10; step++) {
        const { content, calls } = await complete(messages);
        messages.push({ role: 'assistant', content: content || null, ...(calls.length ? { tool_calls: calls } : {}) });
        if (calls.length === 0) return;
        for (const call of calls) {
            const result = await runTool(call);
            console.log(`[${call.function.name}] ${result}`);
            messages.push({ role: 'tool', tool_call_id: call.id, content: result });
        }
    }
}

await startMcp();
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
    const input = line.trim();
    if (input === '/exit') break;
    if (!input) continue;
    try {
        await turn(input);
    } catch (e) {
        console.log(`出错了：${(e as Error).message}`);
    }
}
await Promise.all(servers.map((s) => s.stop()));
process.exit(0);
