// npm run check 用的「间谍」MCP 服务器（stdio，一行一条 JSON-RPC，只用 Node 内置模块）。
// 它把收到的每一行、发出的每一行、自己的 pid 和退出都以 JSON 行追加到日志文件里，检查事后从日志看客户端做了什么、按什么顺序做的；
// 还能照吩咐故意出错，看客户端撑不撑得住。
//   node spy-mcp-server.mjs --log <日志文件> [--mode a,b] [--marker 文字]
//   （也可以用环境变量 SPY_LOG、SPY_MODE、SPY_MARKER）
// mode（可以用逗号组合）：
//   out-of-order  回答 tools/call 之前，先发一个 id 对不上任何请求的响应（内容是 WRONG-<marker>），再发正确的
//   chatty        回答 tools/call 之前，先发一条通知（notifications/message）和一个服务器发给客户端的请求（ping）
//   silent        永远不回答 tools/call（客户端得靠自己的计时器放弃）
//   exit-on-call  收到 tools/call 就退出（退出码 3），挂着的请求只能由客户端发现服务器不在了
//   stubborn      stdin 关了也不退出（像有的真实服务器），只有信号能让它走
// 日志的每一行：{ t: 毫秒时间戳, kind: 'start' | 'in' | 'out' | 'stdin-end' | 'signal' | 'exit', ... }
//   start 带 pid、ppid；in / out 带 line（原样的一行）；in 的行能解析时还带 msg
import { appendFileSync } from 'node:fs';

const args = process.argv.slice(2);
const option = (name, env) => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? args[at + 1] : process.env[env];
};
const LOG = option('log', 'SPY_LOG');
const MODES = new Set((option('mode', 'SPY_MODE') ?? '').split(',').filter(Boolean));
const MARKER = option('marker', 'SPY_MARKER') ?? 'spy';

const log = (entry) => {
    if (LOG) appendFileSync(LOG, JSON.stringify({ t: Date.now(), ...entry }) + '\n');
};

const TOOLS = [
    {
        name: 'echo',
        description: '原样返回一段文字（前面加上一个标记）。',
        inputSchema: { type: 'object', properties: { text: { type: 'string', description: '要返回的文字' } }, required: ['text'] },
    },
    {
        name: 'clock',
        description: '返回服务器的一个标记。',
        inputSchema: { type: 'object', properties: {} },
    },
];

function send(msg) {
    const line = JSON.stringify(msg);
    log({ kind: 'out', line });
    process.stdout.write(line + '\n');
}

const textResult = (text) => ({ content: [{ type: 'text', text }] });
const SUPPORTED = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

// 一个肯定对不上客户端请求的 id：数字就加一万，字符串就加后缀
const wrongId = (id) => (typeof id === 'number' ? id + 10000 : `${id}-spy-wrong`);

function callTool(id, params) {
    if (MODES.has('exit-on-call')) {
        log({ kind: 'exit', code: 3 });
        process.exit(3);
    }
    if (MODES.has('silent')) return;
    if (MODES.has('chatty')) {
        send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `spy ${MARKER} 正在处理` } });
        send({ jsonrpc: '2.0', id: 'spy-ping-1', method: 'ping' });
    }
    if (MODES.has('out-of-order')) send({ jsonrpc: '2.0', id: wrongId(id), result: textResult(`WRONG-${MARKER}`) });
    const name = params?.name;
    const input = params?.arguments ?? {};
    if (name === 'echo') return send({ jsonrpc: '2.0', id, result: textResult(`${MARKER}:${input.text}`) });
    if (name === 'clock') return send({ jsonrpc: '2.0', id, result: textResult(`${MARKER}:clock`) });
    send({ jsonrpc: '2.0', id, result: { ...textResult(`未知工具：${name}`), isError: true } });
}

function handle(msg) {
    const isRequest = typeof msg.method === 'string' && (typeof msg.id === 'number' || typeof msg.id === 'string');
    if (!isRequest) return;   // 通知和客户端发回的响应：只记日志
    const { id, method, params } = msg;
    if (method === 'initialize') {
        const asked = params?.protocolVersion;
        const version = SUPPORTED.includes(asked) ? asked : '2025-06-18';
        return send({ jsonrpc: '2.0', id, result: { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'spy', version: '1.0.0' } } });
    }
    if (method === 'tools/list') return send({ jsonrpc: '2.0', id, result: { tools: TOOLS } });
    if (method === 'tools/call') return callTool(id, params);
    if (method === 'ping') return send({ jsonrpc: '2.0', id, result: {} });
    send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
}

// 自己按字节切行：只认 \n，行尾的 \r 去掉
let buffer = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (let at = buffer.indexOf(10); at >= 0; at = buffer.indexOf(10)) {
        const line = buffer.subarray(0, at).toString('utf8').replace(/\r$/, '');
        buffer = buffer.subarray(at + 1);
        if (line.trim() === '') continue;
        let msg;
        try {
            msg = JSON.parse(line);
        } catch {
            log({ kind: 'in', line });
            continue;
        }
        log({ kind: 'in', line, msg });
        if (msg && typeof msg === 'object' && !Array.isArray(msg)) handle(msg);
    }
});

process.stdin.on('end', () => {
    log({ kind: 'stdin-end' });
    if (MODES.has('stubborn')) {
        setInterval(() => {}, 1 << 30);   // 不退出：只有信号能结束它
        return;
    }
    log({ kind: 'exit', code: 0 });
    process.exit(0);
});

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    process.on(signal, () => {
        log({ kind: 'signal', signal });
        process.exit(0);
    });
}

log({ kind: 'start', pid: process.pid, ppid: process.ppid, modes: [...MODES] });
process.stderr.write(`spy ${MARKER} started\n`);
