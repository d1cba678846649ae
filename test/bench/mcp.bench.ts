// 基准：① 对演示服务器连续 tools/call（中位数、p95 延迟，客户端每次调用的 CPU 微秒），与手写的最简行客户端交替对照；
// ② 行切分：50 MiB 的 100 字节短行、一行 20 MiB，并与 node:readline 对照；
// ③ 同样两种数据经真实管道走完整个客户端，与手写的最简行客户端对照；④ 三个各要 1 秒才回答 initialize 的服务器同时启动。
// 目标：CPU ≤ 50 µs/次、≤ 最简行客户端的 1.2 倍；50 MiB 短行 ≤ 350 ms；20 MiB 长行 ≤ 250 ms；经客户端的短通知 ≤ 最简客户端的 1.5 倍；
// 三个慢服务器 ≤ 1.2 s 就绪。单独运行：npx tsx test/bench/mcp.bench.ts 或 npm run bench mcp
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LineFramer } from '../../hardened/mcp-framing.ts';
import { McpManager } from '../../hardened/mcp-setup.ts';
import { callMcpTool } from '../../hardened/mcp-tools.ts';
import { fakeRegistry, serverOf } from '../mcp/util.ts';

const DEMO = fileURLToPath(new URL('../../hardened/demo-server.mjs', import.meta.url));
const SLOW_INIT = fileURLToPath(new URL('../mcp/servers/slow-init.mjs', import.meta.url));
const FLOOD = fileURLToPath(new URL('../mcp/servers/flood.mjs', import.meta.url));
const CHUNK = 64 * 1024;      // 管道一次读取的典型大小

const verdict = (ok: boolean) => (ok ? '✓' : '✗ 未达标');
const serverConfig = (script: string) => ({ command: process.execPath, args: [script], env: {}, timeout: 60_000 });

// 一组 1000 次调用：每次的耗时（毫秒）和平均每次的 CPU 微秒
async function callBlock(call: (i: number) => Promise<string>): Promise<{ times: number[]; cpu: number }> {
    const times: number[] = [];
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < 1000; i++) {
        const t0 = performance.now();
        await call(i);
        times.push(performance.now() - t0);
    }
    const cpu = process.cpuUsage(cpu0);
    return { times, cpu: (cpu.user + cpu.system) / 1000 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function benchCalls(): Promise<void> {
    const manager = new McpManager([{ name: 'demo', config: serverConfig(DEMO) }], fakeRegistry());
    await manager.connectAll();
    const bare = bareClient();
    try {
        const args = (i: number) => ({ text: `Model Context Protocol ${i}` });
        const ours = (i: number) => callMcpTool(serverOf(manager, 'demo'), 'word_count', args(i));
        const theirs = (i: number) => bare.call('word_count', args(i));
        // 两边交替各跑 12 组、每组 1000 次：第 1 组还有 JIT 在热身（冷态），后 9 组是长时间运行后的稳定状态（取中位数；
        // 交替着跑，机器上别的负载两边一起承担）
        const cpu: { ours: number[]; bare: number[] } = { ours: [], bare: [] };
        let times: number[] = [];
        for (let block = 0; block < 12; block++) {
            const mine = await callBlock(ours);
            cpu.ours.push(mine.cpu);
            times = mine.times;
            cpu.bare.push((await callBlock(theirs)).cpu);
        }
        times.sort((a, b) => a - b);
        const steady = median(cpu.ours.slice(3));
        const steadyBare = median(cpu.bare.slice(3));
        const ratio = steady / steadyBare;
        console.log(`1000 次 tools/call（稳定状态）：中位数 ${times[500].toFixed(3)} ms，p95 ${times[950].toFixed(3)} ms`);
        console.log(`  客户端 CPU：冷态（前 1000 次）${cpu.ours[0].toFixed(1)} µs/次，稳定状态 ${steady.toFixed(1)} µs/次（目标 ≤ 50）${verdict(steady <= 50)}`);
        console.log(`  手写最简行客户端：冷态 ${cpu.bare[0].toFixed(1)} µs/次，稳定状态 ${steadyBare.toFixed(1)} µs/次；` +
            `稳定状态 ${ratio.toFixed(2)}×（目标 ≤ 1.2×）${verdict(ratio <= 1.2)}`);
    } finally {
        await manager.stopAll();
        bare.close();
    }
    console.log(`  参照：裸管道往返的 CPU 下限 ${(await pipeFloor(1000)).toFixed(1)} µs/次（不含任何客户端逻辑）`);
}

// 参照：手写的最简行客户端，就是原教程 mcp.ts 的做法：字符串缓冲按 \n 切行、JSON.parse、按 id 找回等待的请求，
// 每个请求一个 10 秒计时器，结果里的 text 块拼起来。没有行长上限、进度令牌、取消、日志、截断和脱敏
function bareClient(): { call(tool: string, args: object): Promise<string>; close(): void } {
    const child = spawn(process.execPath, [DEMO], { stdio: 'pipe' });
    child.stderr.resume();
    child.stdout.setEncoding('utf8');
    const pending = new Map<number, { resolve(result: any): void; timer: NodeJS.Timeout }>();
    let buffer = '';
    let nextId = 1;
    child.stdout.on('data', (chunk: string) => {
        buffer += chunk;
        for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
            const msg = JSON.parse(buffer.slice(0, nl));
            buffer = buffer.slice(nl + 1);
            const entry = pending.get(msg.id);
            if (!entry) continue;
            clearTimeout(entry.timer);
            pending.delete(msg.id);
            entry.resolve(msg.result);
        }
    });
    const request = (method: string, params: object) => new Promise<any>((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => {
            pending.delete(id);
            reject(new Error('timeout'));
        }, 10_000);
        pending.set(id, { resolve, timer });
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
    return {
        async call(tool, args) {
            const result = await request('tools/call', { name: tool, arguments: args });
            return result.content.filter((c: any) => c.type === 'text').map((c: any) => c.text).join('\n');
        },
        close: () => child.stdin.end(),
    };
}

// 参照：同一台机器上不经过客户端的裸管道往返（只写一行、等任意数据回来），即进程间通信本身的 CPU 下限
async function pipeFloor(calls: number): Promise<number> {
    const child = spawn(process.execPath, [DEMO], { stdio: 'pipe' });
    child.stderr.resume();
    let wake = () => {};
    child.stdout.on('data', () => wake());
    const line = (i: number) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'word_count', arguments: { text: `Model Context Protocol ${i}` } } }) + '\n';
    const roundTrip = (i: number) => new Promise<void>((resolve) => {
        wake = resolve;
        child.stdin.write(line(i));
    });
    for (let i = 0; i < 5000; i++) await roundTrip(i);
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < calls; i++) await roundTrip(i);
    const cpu = process.cpuUsage(cpu0);
    child.stdin.end();
    return (cpu.user + cpu.system) / calls;
}

const MAX_LINE = 64 * 1024 * 1024;
const slices = (data: Buffer) => Array.from({ length: Math.ceil(data.length / CHUNK) }, (_, i) => data.subarray(i * CHUNK, (i + 1) * CHUNK));
const fastest = async <T extends { ms: number }>(run: () => T | Promise<T>): Promise<T> => {
    let best = await run();
    for (let i = 0; i < 2; i++) {
        const next = await run();
        if (next.ms < best.ms) best = next;
    }
    return best;
};

function timeSplit(chunks: Buffer[]): { ms: number; lines: number } {
    let lines = 0;
    const framer = new LineFramer(() => { lines++; }, () => {}, MAX_LINE);
    const t0 = performance.now();
    for (const chunk of chunks) framer.push(chunk);
    return { ms: performance.now() - t0, lines };
}

// 同样的块经一个流交出：一边用字节切行，一边用 node:readline（先解码成字符串再按 \n、\r 切）
async function timeStream(chunks: Buffer[], useReadline: boolean): Promise<{ ms: number; lines: number }> {
    let lines = 0;
    const input = Readable.from(chunks);
    const t0 = performance.now();
    if (useReadline) {
        const rl = createInterface({ input, crlfDelay: Infinity });
        rl.on('line', () => { lines++; });
        await once(rl, 'close');
    } else {
        const framer = new LineFramer(() => { lines++; }, () => {}, MAX_LINE);
        input.on('data', (chunk: Buffer) => framer.push(chunk));
        await once(input, 'end');
    }
    return { ms: performance.now() - t0, lines };
}

async function benchFraming(): Promise<void> {
    const line = Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"' + 'x'.repeat(100 - 72) + '"}}\n');
    if (line.length !== 100) throw new Error(`行长 ${line.length}`);
    const short = Buffer.alloc(50 * 1024 * 1024);
    for (let i = 0; i + 100 <= short.length; i += 100) line.copy(short, i);
    const long = Buffer.alloc(20 * 1024 * 1024 + 1, 0x78);
    long[long.length - 1] = 0x0a;
    const cases = [
        { name: '50 MiB 短行', chunks: slices(short), target: 350 },
        { name: '一行 20 MiB', chunks: slices(long), target: 250 },
    ];
    for (const c of cases) {
        const direct = await fastest(() => timeSplit(c.chunks));
        console.log(`行切分 ${c.name}（${direct.lines} 行）：${direct.ms.toFixed(1)} ms（目标 ≤ ${c.target}）${verdict(direct.ms <= c.target)}`);
        const framer = await fastest(() => timeStream(c.chunks, false));
        const rl = await fastest(() => timeStream(c.chunks, true));
        console.log(`  经流读入：字节切行 ${framer.ms.toFixed(1)} ms，node:readline ${rl.ms.toFixed(1)} ms（${(rl.ms / framer.ms).toFixed(2)}×）` +
            `${rl.lines === framer.lines ? '' : `（行数不同：${rl.lines} / ${framer.lines}）`}`);
    }
    // 跨块的行以拼接字符串交出，展平的开销落在 JSON.parse 里；这里把它也算上，给出完整的一行从字节到对象的时间
    let parsed = 0;
    const json = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x'.repeat(20 * 1024 * 1024) }] } }) + '\n');
    const framer = new LineFramer((l) => { parsed += (JSON.parse(l) as { id: number }).id; }, () => {}, MAX_LINE);
    const t0 = performance.now();
    for (const chunk of slices(json)) framer.push(chunk);
    console.log(`  参照：同样大小的一条 JSON 消息，切分 + JSON.parse 共 ${(performance.now() - t0).toFixed(1)} ms${parsed === 1 ? '' : '（解析失败）'}`);
}

// 经客户端：一次 tools/call 从发出到拿到转换后的文本；flood 之前的 50 MiB 通知都要经过切行、解析、分类、记日志
async function viaClient(tool: string): Promise<{ ms: number }> {
    const manager = new McpManager([{ name: 'flood', config: serverConfig(FLOOD) }], fakeRegistry());
    await manager.connectAll();
    try {
        const t0 = performance.now();
        await callMcpTool(serverOf(manager, 'flood'), tool, {});
        return { ms: performance.now() - t0 };
    } finally {
        await manager.stopAll();
    }
}

// 参照：手写的最简行客户端，按字符串切行、JSON.parse，等到带 id 的响应就停；没有行长上限、不记日志
async function viaBare(tool: string): Promise<{ ms: number }> {
    const child = spawn(process.execPath, [FLOOD], { stdio: 'pipe' });
    child.stderr.resume();
    child.stdout.setEncoding('utf8');
    let rest = '';
    let wake = () => {};
    child.stdout.on('data', (text: string) => {
        let start = 0;
        for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
            const msg = JSON.parse(rest + text.slice(start, nl)) as { id?: number };
            rest = '';
            start = nl + 1;
            if (msg.id !== undefined) wake();
        }
        rest += text.slice(start);
    });
    const ask = (id: number, method: string, params: object) => new Promise<void>((resolve) => {
        wake = resolve;
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
    await ask(0, 'ping', {});
    const t0 = performance.now();
    await ask(1, 'tools/call', { name: tool, arguments: {} });
    const ms = performance.now() - t0;
    child.stdin.end();
    await once(child, 'exit');
    return { ms };
}

// 机器上还有别的负载，两边交替各跑 5 次、各取最快的一次，比值才稳定
async function benchThroughput(): Promise<void> {
    const cases = [
        { name: '50 MiB 短通知（524288 行）', tool: 'flood', limit: 1.5 },
        { name: '一行 20 MiB 的结果', tool: 'big', limit: 1.15 },
    ];
    for (const c of cases) {
        let client = Infinity;
        let bare = Infinity;
        for (let i = 0; i < 5; i++) {
            client = Math.min(client, (await viaClient(c.tool)).ms);
            bare = Math.min(bare, (await viaBare(c.tool)).ms);
        }
        const ratio = client / bare;
        console.log(`经客户端 ${c.name}：${client.toFixed(0)} ms；手写最简行客户端 ${bare.toFixed(0)} ms；` +
            `${ratio.toFixed(2)}×（目标 ≤ ${c.limit}×）${verdict(ratio <= c.limit)}`);
    }
}

async function benchStartup(): Promise<void> {
    const manager = new McpManager(['a', 'b', 'c'].map((name) => ({ name, config: serverConfig(SLOW_INIT) })), fakeRegistry());
    const t0 = performance.now();
    await manager.connectAll();
    const ms = performance.now() - t0;
    const ok = manager.servers.every((s) => s.status === 'connected');
    await manager.stopAll();
    console.log(`三个慢握手（各 1 秒）服务器并发启动：${ms.toFixed(0)} ms 全部就绪（目标 ≤ 1200）${verdict(ok && ms <= 1200)}`);
    console.log(`  参照：同时启动 3 个 node 进程、直到各自写出第一个字节：${(await nodeStartFloor()).toFixed(0)} ms（这台机器上 1 秒之外的下限）`);
}

// 三个 node 进程同时冷启动要多久：慢握手服务器在 1 秒之外至少还要花这么多时间，与客户端无关
async function nodeStartFloor(): Promise<number> {
    const t0 = performance.now();
    await Promise.all([0, 1, 2].map(() => new Promise<void>((resolve) => {
        const child = spawn(process.execPath, ['-e', 'process.stdout.write("x")']);
        child.stdout.once('data', () => resolve());
    })));
    return performance.now() - t0;
}

export async function run(): Promise<void> {
    await benchCalls();
    await benchFraming();
    await benchThroughput();
    await benchStartup();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
