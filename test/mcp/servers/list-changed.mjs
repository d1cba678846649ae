// 在 tools/list 的响应之前发 notifications/tools/list_changed（server-everything 就这样做）
import { serve, send, tool } from './lib.mjs';

serve({
    tools: [tool('changing')],
    onMessage(msg) {
        if (msg.method === 'tools/list') send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
        return false;
    },
});
