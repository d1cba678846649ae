// Day 7：全屏界面的运行时：占用终端（原始模式、备用屏幕、括号粘贴、鼠标），把按键交给 editor.ts，
// 把状态按 render.ts 画出来并合并重绘（每秒不超过 60 帧），每条退出路径都恢复终端。
import type { Color } from './color.js';
import { applyKey } from './editor.js';
import { cursorPosition, renderFrame } from './render.js';
import { KeyDecoder, type Key } from './term.js';
import { createState } from './view.js';

const FRAME_MS = 17;         // 两帧之间的最短间隔：每秒不超过 60 帧
const ESC_WAIT_MS = 30;      // 单独的 ESC 等这么久没有下文，才算 Esc 键

export interface TuiOptions {
    input: NodeJS.ReadStream;
    output: NodeJS.WriteStream;
    onSubmit(line: string): void;   // 回车且内容非空；确认中空回车也会以 '' 调用
    onCancel(): void;               // 忙时按 Esc 或 Ctrl+C
    onExit(): void;                 // Ctrl+D，或空闲、输入为空时按 Ctrl+C
    panel(): string[];              // 面板文字行，每帧调用一次
}

// 备用屏幕、鼠标上报（1000 + SGR 1006）、括号粘贴；退出时按相反顺序关掉
const ENTER = '\x1b[?1049h\x1b[?1000h\x1b[?1006h\x1b[?2004h';
const LEAVE = '\x1b[?2004l\x1b[?1006l\x1b[?1000l\x1b[0m\x1b[?25h\x1b[?1049l';

export class Tui {
    readonly state = createState();
    private decoder = new KeyDecoder();
    private previous: string[] = [];
    private clearNext = true;
    private running = false;
    private entered = false;
    private lastFrame = 0;
    private timer: NodeJS.Timeout | null = null;
    private escTimer: NodeJS.Timeout | null = null;
    private question: { seq: number; text: string; draft: string[] } | null = null;

    constructor(private readonly opts: TuiOptions) {}

    private get size(): [number, number] {
        return [this.opts.output.columns || 80, this.opts.output.rows || 24];
    }

    start(): void {
        if (this.running) return;
        this.running = this.entered = true;
        const { input, output } = this.opts;
        input.setRawMode?.(true);
        input.on('data', this.onData);
        input.resume();
        output.on('resize', this.onResize);
        // 'exit' 覆盖 process.exit() 和正常结束；uncaughtExceptionMonitor 在打印崩溃堆栈之前触发，
        // 先恢复终端，堆栈才会留在普通屏幕上而不是随备用屏幕一起消失
        process.on('exit', this.restore);
        process.on('uncaughtExceptionMonitor', this.restore);
        output.write(ENTER);
        this.clearNext = true;
        this.renderNow();
    }

    // 恢复终端；可重复调用。SIGTERM 等信号由应用层走退出流程，流程里调用 stop()
    stop(): void {
        if (!this.running) return;
        this.running = false;
        for (const t of [this.timer, this.escTimer]) if (t) clearTimeout(t);
        this.timer = this.escTimer = null;
        this.opts.input.off('data', this.onData);
        this.opts.input.pause();   // 不再读 stdin，进程才能自然结束
        this.opts.output.off('resize', this.onResize);
        process.off('exit', this.restore);
        process.off('uncaughtExceptionMonitor', this.restore);
        this.restore();
    }

    append(text: string, color: Color): void {
        this.state.log.append(text, color);
        this.requestRender();
    }

    appendInline(text: string, color: Color): void {
        this.state.log.appendInline(text, color);
        this.requestRender();
    }

    setBusy(busy: boolean): void { this.state.busy = busy; this.requestRender(); }
    setQueued(n: number): void { this.state.queued = n; this.requestRender(); }
    setConfirming(on: boolean): void { this.state.confirming = on; this.requestRender(); }

    // 确认第 1 步：提示按行拆开，最后一行是问题，前面的（diff、网址等）先进日志，全部黄色
    showQuestion(prompt: string): void {
        const lines = prompt.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
        const text = lines.pop() ?? '确认';
        for (const line of lines) this.state.log.append(line, 'tool');
        this.state.log.append(text, 'tool');
        // 输入行里提问前打的字先收起来、答完放回：只有提问之后打的字能回答
        this.question = { seq: this.state.log.end - 1, text, draft: this.state.input };
        this.state.input = [];
        this.state.cursor = 0;
        this.setConfirming(true);
    }

    // 确认最后一步：问题仍是最后一行就在行尾接 ' → y/n'，否则另起一行“问题 → y/n”
    answerQuestion(yes: boolean): void {
        const mark = yes ? ' → y' : ' → n';
        const q = this.question;
        this.question = null;
        if (q) [this.state.input, this.state.cursor] = [q.draft, q.draft.length];
        const log = this.state.log;
        if (q && q.seq === log.end - 1 && log.color(q.seq) === 'tool') log.appendInline(mark, 'tool');
        else log.append((q?.text ?? '确认') + mark, 'tool');
        this.setConfirming(false);
    }

    // 合并重绘：不管来了多少次请求，两帧之间至少隔 FRAME_MS
    requestRender(): void {
        if (!this.running || this.timer) return;
        // 向上取整：libuv 的定时器按毫秒计，16.4 会被截成 16，帧率就会略超 60
        const wait = Math.max(0, Math.ceil(FRAME_MS - (performance.now() - this.lastFrame)));
        this.timer = setTimeout(() => { this.timer = null; this.renderNow(); }, wait);
    }

    // 立即画一帧（流结束时的最后一帧用它）。整帧拼成一个字符串一次写出，只重写变化的行，不闪烁
    renderNow(): void {
        if (this.timer) { clearTimeout(this.timer); this.timer = null; }
        if (!this.running) return;
        const [cols, rows] = this.size;
        try {
            this.state.panel = this.opts.panel();
        } catch (e) {
            this.state.panel = [`面板出错：${(e as Error).message}`];
        }
        const lines = renderFrame(this.state, cols, rows);
        const cursor = cursorPosition(this.state, cols, rows);
        // 2026 是“同步输出”：支持的终端整帧一起显示，不支持的会忽略
        let out = '\x1b[?2026h\x1b[?25l' + (this.clearNext ? '\x1b[2J' : '');
        for (let r = 0; r < lines.length; r++) {
            if (this.clearNext || lines[r] !== this.previous[r]) out += `\x1b[${r + 1};1H\x1b[2K${lines[r]}`;
        }
        out += `\x1b[${cursor.row + 1};${cursor.col + 1}H\x1b[?25h\x1b[?2026l`;
        this.opts.output.write(out);
        this.previous = lines;
        this.clearNext = false;
        this.lastFrame = performance.now();
    }

    private onData = (chunk: Buffer | string): void => {
        if (this.escTimer) { clearTimeout(this.escTimer); this.escTimer = null; }
        this.handle(this.decoder.feed(chunk));
        if (this.decoder.pending) {
            this.escTimer = setTimeout(() => { this.escTimer = null; this.handle(this.decoder.flush()); }, ESC_WAIT_MS);
        }
    };

    private handle(keys: Key[]): void {
        const [cols, rows] = this.size;
        for (const key of keys) {
            if (!this.running) return;   // 回调里可能已经 stop() 了
            const action = applyKey(this.state, key, cols, rows);
            if (action?.type === 'submit') this.opts.onSubmit(action.line);
            else if (action?.type === 'cancel') this.opts.onCancel();
            else if (action?.type === 'exit') this.opts.onExit();
        }
        if (keys.length) this.requestRender();
    }

    private onResize = (): void => {
        this.clearNext = true;
        this.renderNow();
    };

    private restore = (): void => {
        if (!this.entered) return;
        this.entered = false;
        try {
            this.opts.input.setRawMode?.(false);
        } catch {
            // stdin 已经关闭时会抛错，恢复终端要尽力而为
        }
        this.opts.output.write(LEAVE);
    };
}
