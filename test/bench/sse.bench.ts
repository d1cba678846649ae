// 流式解码的开销：同一个本机服务返回的同一份 SSE 正文，
// 一边只用 fetch 读完字节（下限），一边用加固版的 readChatStream 完整解码（BENCH_STAGE=day01 量一课的）。目标：解码 ≤ 2× 纯读取，且随大小线性增长。
// 两种写法都测：一事件一写是真实服务商的样子；大块写出时网络几乎不花时间，比值反映的是解码器（主要是 JSON.parse）本身。
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** 返回一个个事件：真实的服务商每生成一小段就发一个事件，这里也一事件一写。 */
function makeEvents(bytes: number): Buffer[] {
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < bytes; i++) {
        const ev = `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"tok${i % 1000} "},"finish_reason":null}]}\n\n`;
        parts.push(ev);
        size += ev.length;
    }
    parts.push('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
    return parts.map((p) => Buffer.from(p));
}

export async function run(stage = process.env.BENCH_STAGE ?? 'hardened'): Promise<void> {
    const { readChatStream } = await import(pathToFileURL(path.join(REPO, stage, 'sse.ts')).href);
    const bodies = new Map<string, Buffer[]>([['1', makeEvents(1 << 20)], ['10', makeEvents(10 << 20)]]);
    const joined = new Map([...bodies].map(([k, v]) => [k, Buffer.concat(v)]));
    // /1、/10：一事件一写（真实服务商的方式）；/bulk1、/bulk10：整段按 64 KiB 写出，只剩解码器本身的开销
    const server = http.createServer((req, res) => {
        const name = req.url!.slice(1);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (name.startsWith('bulk')) {
            const body = joined.get(name.slice(4))!;
            for (let i = 0; i < body.length; i += 65536) res.write(body.subarray(i, i + 65536));
        } else for (const ev of bodies.get(name)!) res.write(ev);
        res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

    const plain = async (mb: string) => {
        const res = await fetch(base + mb);
        let n = 0;
        for await (const chunk of res.body!) n += chunk.length;
        return n;
    };
    const decode = async (mb: string) => {
        const res = await fetch(base + mb);
        let text = 0;
        for await (const ev of readChatStream(res.body!)) if (ev.type === 'text') text += ev.text.length;
        return text;
    };
    const best = async (fn: (mb: string) => Promise<number>, mb: string) => {
        let min = Infinity;
        for (let i = 0; i < 7; i++) {
            const t = performance.now();
            await fn(mb);
            min = Math.min(min, performance.now() - t);
        }
        return min;
    };
    for (const [label, prefix] of [['一事件一写', ''], ['64 KiB 大块', 'bulk']]) {
        const rows: Record<string, number>[] = [];
        for (const mb of ['1', '10']) {
            await plain(prefix + mb);
            await decode(prefix + mb);   // 预热
            const p = await best(plain, prefix + mb);
            const d = await best(decode, prefix + mb);
            rows.push({ plain: p, decode: d });
            console.log(`${label} ${mb.padStart(2)} MiB：纯读取 ${p.toFixed(1)} ms，解码 ${d.toFixed(1)} ms，比值 ${(d / p).toFixed(2)}×`);
        }
        const perMb = (rows[1].decode - rows[0].decode) / 9;
        console.log(`${label}：解码每多 1 MiB 增加 ${perMb.toFixed(1)} ms（纯读取 ${((rows[1].plain - rows[0].plain) / 9).toFixed(1)} ms）`);
    }
    server.close();
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await run(process.argv[2]);
