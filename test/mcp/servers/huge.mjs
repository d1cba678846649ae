// 一个工具回一行 20 MB 的结果，另一个回 70 MB（超过客户端 64 MiB 的行上限）
import { serve, text, tool, record } from './lib.mjs';

const big = (n) => text('x'.repeat(n));
serve({
    tools: [tool('big20'), tool('big70'), tool('small')],
    call(name) {
        if (name === 'big20') return big(20_000_000);
        if (name === 'big70') return big(70_000_000);
        return text('small ok');
    },
    onMessage(msg) {
        if (msg.method === 'notifications/cancelled') record({ cancelled: msg.params?.requestId });
        return false;
    },
});
