// 测试用故障服务器的公共部分：按行读 stdin，回答 initialize / ping / tools/list / tools/call。
// 设置了 MCP_TEST_LOG 时，把收到的每条消息连同接收时间追加到那个文件，测试据此检查客户端的行为。
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

// 不带路径模式的 `node --test test/` 会把 test/ 下的 .mjs 都当成测试文件直接运行，那样它们会一直等 stdin。
// 真正由测试启动时环境里一定有 GEEKAGENT_TEST_MARK；没有就说明是被测试运行器误启动的，立即退出。
if (process.env.NODE_TEST_CONTEXT && !process.env.GEEKAGENT_TEST_MARK) process.exit(0);

export const send = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');
export const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });

export function record(entry) {
    const file = process.env.MCP_TEST_LOG;
    if (file) appendFileSync(file, JSON.stringify({ t: Date.now(), pid: process.pid, ...entry }) + '\n');
}

// onMessage 返回 true 表示它已经处理了这条消息
export function serve({ tools = [], call = (name) => text(`called ${name}`), version, onMessage, list } = {}) {
    const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
    rl.on('line', async (line) => {
        let msg;
        try {
            msg = JSON.parse(line);
        } catch {
            return;
        }
        record({ msg });
        if (onMessage && (await onMessage(msg))) return;
        if (typeof msg?.method !== 'string' || msg.id === undefined || msg.id === null) return;
        const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
        switch (msg.method) {
            case 'initialize':
                return reply({
                    protocolVersion: version ?? msg.params?.protocolVersion ?? '2025-06-18',
                    capabilities: { tools: {} },
                    serverInfo: { name: 'test-server', version: '0.0.1' },
                });
            case 'ping':
                return reply({});
            case 'tools/list':
                return reply(list ? list(msg.params ?? {}) : { tools });
            case 'tools/call':
                return reply(await call(msg.params?.name, msg.params?.arguments ?? {}, msg));
            default:
                return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
        }
    });
    return rl;
}

export const tool = (name, extra = {}) => ({ name, description: `测试工具 ${name}`, inputSchema: { type: 'object', properties: {} }, ...extra });
