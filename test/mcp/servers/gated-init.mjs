// 握手由测试放行：收到 initialize 后等到 INIT_GATE 这个文件出现才回答（每 20 毫秒看一次）。
// 「服务器还在连接」因此不靠它慢得够不够，测试想让它连上时写出这个文件
import { existsSync } from 'node:fs';
import { serve, send, tool } from './lib.mjs';

serve({
    tools: [tool('ready')],
    onMessage(msg) {
        if (msg.method !== 'initialize') return false;
        const timer = setInterval(() => {
            if (!existsSync(process.env.INIT_GATE)) return;
            clearInterval(timer);
            send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'gated', version: '1' } } });
        }, 20);
        return true;
    },
});
