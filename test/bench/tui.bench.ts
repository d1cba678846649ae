// 基准：把一段 200 KB 的回复按每块约 20 个字符流式送进全屏界面，输出写进一个什么都不做的“空终端”（120×40）。
// 日志里预先放 100、1000、10000 行（超过 1000 行的部分会被丢弃），分别统计画了多少帧、
// 流式期间每秒多少帧、每 10 KB 花多少 CPU 时间。
// 节奏：每 2 ms 一个定时器刻度，按 40 KB/s 的速度把到期的块送进去（比真实模型快上百倍，是压力测试）。
// 目标：10000 行时每 10 KB 的 CPU 不超过 100 行时的 1.5 倍；流式期间每秒不超过 60 帧。
// 单独运行：npx tsx test/bench/tui.bench.ts
import { Writable, PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Tui } from '../../hardened/tui.ts';

const COLS = 120;
const ROWS = 40;
const REPLY_CHARS = 200 * 1024;
const DELTA = 20;
const RATE = 40 * 1024;   // 每秒送入的字符数
const TICK_MS = 2;

const verdict = (ok: boolean) => (ok ? '✓' : '✗ 未达标');

// 像模型回复那样的文字：中英混排、有长有短的行、偶尔有代码
function makeReply(chars: number): string {
    const lines = [
        '这一段说明了为什么要把渲染合并到每 16 毫秒一帧：流式输出每秒会来上百个小块。',
        'The renderer only wraps the entries that are visible, so the cost of a frame stays flat.',
        '```ts',
        'const frame = renderFrame(state, columns, rows); // 纯函数，方便测试',
        '```',
        '- 列表项：日志最多保留 1000 行，超过的部分从头丢弃。',
        '',
        'A longer paragraph that keeps going well past the width of the log pane so that it has to be wrapped onto several rows, with 中文 mixed in here and there to exercise the width table.',
    ];
    let text = '';
    for (let i = 0; text.length < chars; i++) text += lines[i % lines.length] + '\n';
    return text.slice(0, chars);
}

// 界面每帧一次 write，以同步输出的开始序列打头：数这样的 write 就是帧数
const FRAME_START = '\x1b[?2026h';

function nullTerminal() {
    const input = Object.assign(new PassThrough(), { setRawMode: () => input });
    const output = Object.assign(new Writable({
        write(chunk: Buffer, _enc, cb) {
            output.bytes += chunk.length;
            if (chunk.subarray(0, FRAME_START.length).toString() === FRAME_START) output.frames++;
            cb();
        },
    }), { bytes: 0, frames: 0, columns: COLS, rows: ROWS });
    return { input, output };
}

interface Result { frames: number; seconds: number; cpuMs: number; bytes: number }

async function streamOnce(preload: number, reply: string): Promise<Result> {
    const { input, output } = nullTerminal();
    const tui = new Tui({
        input: input as unknown as NodeJS.ReadStream,
        output: output as unknown as NodeJS.WriteStream,
        onSubmit() {}, onCancel() {}, onExit() {},
        panel: () => ['模型 deepseek-v4-flash', '会话 bench', '根目录 …/geekagent', '─ 上下文', '1234 / 64000 tokens', '2% 已用'],
    });
    tui.start();
    for (let i = 0; i < preload; i++) {
        tui.append(`预置第 ${i} 行：some earlier output that is long enough to wrap at narrow widths, 还有中文。`, i % 2 ? 'model' : 'user');
    }
    tui.renderNow();
    const frames0 = output.frames;
    const bytes0 = output.bytes;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let sent = 0;
    await new Promise<void>((resolve) => {
        const tick = () => {
            const due = Math.min(reply.length, Math.floor(((performance.now() - t0) / 1000) * RATE));
            for (; sent < due; sent += DELTA) tui.appendInline(reply.slice(sent, sent + DELTA), 'model');
            if (sent < reply.length) setTimeout(tick, TICK_MS);
            else resolve();
        };
        tick();
    });
    tui.renderNow();   // 流结束时的最后一帧
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const result = { frames: output.frames - frames0, seconds, cpuMs: (cpu.user + cpu.system) / 1000, bytes: output.bytes - bytes0 };
    tui.stop();
    return result;
}

export async function run(): Promise<void> {
    const reply = makeReply(REPLY_CHARS);
    await streamOnce(100, reply.slice(0, 80 * 1024));   // 预热 JIT，免得排在第一的那组吃亏
    const per10k: number[] = [];
    let maxFps = 0;
    console.log(`终端 ${COLS}×${ROWS}，回复 ${REPLY_CHARS / 1024} KB，每块 ${DELTA} 字符，送入速度 ${RATE / 1024} KB/s`);
    for (const preload of [100, 1000, 10_000]) {
        const r = await streamOnce(preload, reply);
        const cpu10k = r.cpuMs / (REPLY_CHARS / 10_240);
        const fps = r.frames / r.seconds;
        per10k.push(cpu10k);
        maxFps = Math.max(maxFps, fps);
        console.log(
            `预置 ${String(preload).padStart(5)} 行：${r.frames} 帧 / ${r.seconds.toFixed(2)} s = ${fps.toFixed(1)} 帧/秒，` +
            `CPU ${r.cpuMs.toFixed(0)} ms（每 10 KB ${cpu10k.toFixed(2)} ms，每帧 ${(r.cpuMs / r.frames).toFixed(3)} ms），` +
            `写出 ${(r.bytes / 1024).toFixed(0)} KB`,
        );
    }
    const ratio = per10k[2] / per10k[0];
    console.log(`  10000 行 / 100 行 的每 10 KB CPU 之比 ${ratio.toFixed(2)}（目标 ≤ 1.5）${verdict(ratio <= 1.5)}`);
    console.log(`  流式期间最高 ${maxFps.toFixed(1)} 帧/秒（目标 ≤ 60）${verdict(maxFps <= 60)}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await run();
