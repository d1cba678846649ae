// Day 15：教学用的 MCP 演示服务器，两个工具 word_count 和 dice。纯 JavaScript、零依赖：node demo-server.mjs。
// stdin 上一行一条 JSON-RPC 2.0 消息，stdout 上只写 JSON 行（写别的会打乱客户端的解析），日志写 stderr。
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
    },
    {
        name: 'dice',
        description: '掷一个六面骰子，返回随机点数。',
        inputSchema: { type: 'object', properties: {} },
    },
];

const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
const text = (value, isError = false) => ({ content: [{ type: 'text', text: value }], ...(isError ? { isError: true } : {}) });

// 工具自己的失败（参数不对、没有这个工具）放在正常的结果里，用 isError 标出：模型读得到原因，服务器也不会因此崩溃
function callTool(name, args) {
    if (name === 'word_count') {
        if (typeof args.text !== 'string') return text('text 必须是字符串', true);
        const words = args.text.split(/\s+/).filter(Boolean).length;
        // 按码点数字符：[...s] 里一个 emoji 算一个，s.length 会把它算成两个
        return text(`字符数 ${[...args.text].length}，词数 ${words}`);
    }
    if (name === 'dice') return text(`点数：${1 + Math.floor(Math.random() * 6)}`);
    return text(`未知工具：${name}`, true);
}

// 一个请求 → 它的响应，带着同一个 id
function answer(id, method, params) {
    switch (method) {
        case 'initialize':
            // 客户端要的版本原样回答；真正的服务器只回答自己支持的版本（加固版的客户端会检查）
            return send({ id, result: {
                protocolVersion: params?.protocolVersion ?? '2025-06-18',
                capabilities: { tools: {} },   // 声明：这台服务器提供工具
                serverInfo: { name: 'geekagent-demo', version: '1.0.0' },
            } });
        case 'tools/list':
            return send({ id, result: { tools: TOOLS } });
        case 'tools/call':
            return send({ id, result: callTool(params?.name, params?.arguments ?? {}) });
        case 'ping':
            return send({ id, result: {} });   // 双方都可能发 ping，收到就得回一个空结果
        default:
            // 不认识的请求也要回答：不回答，对方只能一直等到超时
            return send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
    }
}

// readline 一行读一条。crlfDelay: Infinity：\r\n 总算一个换行，不管两个字节隔多久到达
createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
    let message;
    try {
        message = JSON.parse(line);
    } catch {
        return;   // 不是 JSON 的行：不回答
    }
    // 只回答请求（有 method、有 id）；通知（notifications/initialized）没有 id，响应没有 method，都不回答
    const isRequest = typeof message?.method === 'string' && message.id !== undefined && message.id !== null;
    if (isRequest) answer(message.id, message.method, message.params);
});
// stdin 关闭后 readline 结束，事件循环空了，进程自己以退出码 0 结束：客户端关 stdin 就是让它退出
process.stderr.write('geekagent-demo started\n');
