// Day 15：教学用的 MCP 演示服务器。纯 JavaScript、零依赖，用 node 直接运行。
// stdin 每行一条 JSON-RPC 2.0 消息；stdout 只写 JSON 行（写别的会打乱客户端的解析），日志走 stderr。
import { createInterface } from 'node:readline';

const TOOLS = [
    {
        name: 'word_count',
        description: '统计一段文字的字符数与词数（词数按空白切分计算）。',
        inputSchema: {
            type: 'object',
            properties: { text: { type: 'string', description: '要统计的文字' } },
            required: ['text'],
        },
        annotations: { readOnlyHint: true },
    },
    {
        name: 'dice',
        description: '掷一个六面骰子，返回随机点数。',
        inputSchema: { type: 'object', properties: {} },
        annotations: { readOnlyHint: true },
    },
];

const send = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');
const textResult = (text, isError = false) => ({ content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) });

// 工具自身的失败（参数不对、未知工具）放在正常结果里，用 isError 标出，让模型能读到原因
function callTool(name, args) {
    if (name === 'word_count') {
        if (typeof args.text !== 'string') return textResult('text 必须是字符串', true);
        const trimmed = args.text.trim();
        const words = trimmed === '' ? 0 : trimmed.split(/\s+/).length;
        // 按码点计数：emoji 等 UTF-16 代理对算一个字符（最简写法 text.length 会算成两个）
        return textResult(`字符数 ${[...args.text].length}，词数 ${words}`);
    }
    if (name === 'dice') return textResult(`点数：${1 + Math.floor(Math.random() * 6)}`);
    return textResult(`未知工具：${name}`, true);
}

function handle({ id, method, params }) {
    const reply = (result) => send({ jsonrpc: '2.0', id, result });
    switch (method) {
        case 'initialize':
            return reply({ protocolVersion: negotiate(params?.protocolVersion), capabilities: { tools: {} }, serverInfo: { name: 'geekagent-demo', version: '1.0.0' } });
        case 'tools/list':
            return reply({ tools: TOOLS });
        case 'tools/call':
            if (typeof params?.name !== 'string') return fail(id, -32602, 'Invalid params');
            return reply(callTool(params.name, params.arguments ?? {}));
        default:
            return otherRequest(id, method);
    }
}

// 只回答请求；通知（notifications/initialized……）、响应和认不出的行都不回
createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
    const msg = requestIn(line);
    if (msg) handle(msg);
});
// stdin 关闭后 readline 结束，事件循环空了，进程自然以退出码 0 结束
process.stderr.write('geekagent-demo started\n');

// —— 加固：版本协商、ping 与不认识的方法、参数不对、不是请求的行 ——
const SUPPORTED = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

// 客户端要的版本我们也支持就用它，否则回我们自己的版本，由客户端决定还连不连
function negotiate(asked) {
    return SUPPORTED.includes(asked) ? asked : '2025-06-18';
}

function fail(id, code, message) {
    send({ jsonrpc: '2.0', id, error: { code, message } });
}

// ping 必须回答（客户端和服务器都可能发）；其他方法 -32601
function otherRequest(id, method) {
    if (method === 'ping') send({ jsonrpc: '2.0', id, result: {} });
    else fail(id, -32601, 'Method not found');
}

// 请求：有 method、且有 id（可以是 0 或字符串）。不是 JSON 或不是请求的行返回 undefined
function requestIn(line) {
    let msg;
    try {
        msg = JSON.parse(line);
    } catch {
        return undefined;
    }
    const isRequest = msg && typeof msg === 'object' && !Array.isArray(msg)
        && typeof msg.method === 'string' && (typeof msg.id === 'number' || typeof msg.id === 'string');
    return isRequest ? msg : undefined;
}
