// 不读 stdin、只管发 ping 的服务器：握手照常；收到 tools/call 后不再读 stdin、也不回答，发出 PING_MB（默认 16）MiB 的 ping：
// 量有界，几秒内跑完。每个 ping 的 id 长 PING_ID（默认 1000）个字符，回答要原样带着它；id 短的 ping 只有几十字节，
// 同样多的积压就是几十万条回答（Agent 曾按条数多占内存）。发完不退出（一直占着），只能由 Agent 停掉
import { serve, tool } from './lib.mjs';

const pad = 'p'.repeat(Number(process.env.PING_ID ?? 1000));
const total = Number(process.env.PING_MB ?? 16) * 1024 * 1024;
const rl = serve({
    tools: [tool('flood')],
    onMessage(msg) {
        if (msg.method !== 'tools/call') return false;
        rl.close();
        process.stdin.pause();
        for (let sent = 0, id = 0; sent < total;) {
            let chunk = '';
            for (let j = 0; j < 100; j++) chunk += JSON.stringify({ jsonrpc: '2.0', id: `${pad}${id++}`, method: 'ping' }) + '\n';
            process.stdout.write(chunk);
            sent += chunk.length;
        }
        setInterval(() => {}, 60_000);
        return true;
    },
});
