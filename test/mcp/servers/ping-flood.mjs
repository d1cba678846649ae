// 不读 stdin、只管发 ping 的服务器：握手照常；收到 tools/call 后不再读 stdin、也不回答，发出一串 ping。
// 每个 ping 的 id 长 1000 个字符（回答要原样带着它），PING_MB（默认 16）MiB 的回答就是一万六千来个 ping：量有界，几秒内跑完。
// 发完不退出（一直占着），只能由 Agent 停掉
import { serve, tool } from './lib.mjs';

const pad = 'p'.repeat(1000);
const count = Math.ceil((Number(process.env.PING_MB ?? 16) * 1024 * 1024) / pad.length);
const rl = serve({
    tools: [tool('flood')],
    onMessage(msg) {
        if (msg.method !== 'tools/call') return false;
        rl.close();
        process.stdin.pause();
        for (let i = 0; i < count; i += 100) {
            let chunk = '';
            for (let j = i; j < Math.min(i + 100, count); j++) chunk += JSON.stringify({ jsonrpc: '2.0', id: `${pad}${j}`, method: 'ping' }) + '\n';
            process.stdout.write(chunk);
        }
        setInterval(() => {}, 60_000);
        return true;
    },
});
