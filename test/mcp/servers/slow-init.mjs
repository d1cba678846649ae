// 收到 initialize 后等 1 秒才回答；收到的时间由 lib 记录到 MCP_TEST_LOG
import { serve, send, tool } from './lib.mjs';

serve({
    tools: [tool('ready')],
    onMessage(msg) {
        if (msg.method !== 'initialize') return false;
        setTimeout(() => send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1' } } }), 1000);
        return true;
    },
});
