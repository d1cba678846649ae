// tools/call 要 SLOW_MS 毫秒（默认 15 秒）才回答；记录收到的 notifications/cancelled
import { serve, text, tool, record } from './lib.mjs';

const delay = Number(process.env.SLOW_MS ?? 15000);
serve({
    tools: [tool('slow')],
    call: () => new Promise((resolve) => setTimeout(() => resolve(text('slow done')), delay)),
    onMessage(msg) {
        if (msg.method === 'notifications/cancelled') record({ cancelled: msg.params?.requestId, reason: msg.params?.reason });
        return false;
    },
});
