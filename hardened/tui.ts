// Day 7：全屏界面的运行时：占用终端（原始模式、备用屏幕），把按键交给 editor.ts，把状态按 render.ts 画出来。
// 合并重绘（每秒不超过 60 帧）、单独 Esc 的等待、每条退出路径都恢复终端，在分隔线下面。
import type { Color } from './color.ts';
import { applyKey } from './editor.ts';
import { cursorPosition, renderFrame } from './render.ts';
import { KeyDecoder, type Key } from './term.ts';
import { createState } from './view.ts';

export interface TuiOptions {
    input: NodeJS.ReadStream;
    output: NodeJS.WriteStream;
    onSubmit(line: string): void;   // 回车且内容非空；确认中空回车也会以 '' 调用
    onCancel(): void;               // 忙时按 Esc 或 Ctrl+C
    onExit(): void;                 // Ctrl+D，或空闲、输入为空时按 Ctrl+C
    panel(): string[];              // 面板文字行，每帧调用一次
}

// 备用屏幕（退出后原来的终端内容原样回来）、鼠标上报（1000 + SGR 1006，滚轮用）、括号粘贴
const ENTER = '\x1b[?1049h\x1b[?1000h\x1b[?1006h\x1b[?2004h';

export class Tui {
    readonly state = createState();
    private decoder = new KeyDecoder();
    private running = false;
    private previous: string[] = [];   // 上一帧的各行；空数组 = 下一帧先清屏、整帧重画
    private readonly opts: TuiOptions;

    constructor(opts: TuiOptions) { this.opts = opts; }

    private get size(): [number, number] {
        return [this.opts.output.columns || 80, this.opts.output.rows || 24];
    }

    start(): void {
        if (this.running) return;
        this.running = true;
        const { input, output } = this.opts;
        input.setRawMode?.(true);   // 原始模式：按键逐个送来、不回显，Ctrl+C 也只是一个字节
        input.on('data', this.onData);
        input.resume();
        this.guardTerminal();   // 尺寸变了重画；进程不管怎么结束都恢复终端
        output.write(ENTER);
        this.previous = [];
        this.renderNow();
    }

    // 恢复终端；可重复调用。SIGTERM 等信号由应用层走退出流程，流程里调用 stop()
    stop(): void {
        if (!this.running) return;
        this.running = false;
        this.opts.input.off('data', this.onData);
        this.opts.input.pause();   // 不再读 stdin，进程才能自然结束
        this.releaseTerminal();
    }

    append(text: string, color: Color): void { this.state.log.append(text, color); this.requestRender(); }
    appendInline(text: string, color: Color): void { this.state.log.appendInline(text, color); this.requestRender(); }
    setBusy(busy: boolean): void { this.state.busy = busy; this.requestRender(); }
    setQueued(n: number): void { this.state.queued = n; this.requestRender(); }
    setConfirming(on: boolean): void { this.state.confirming = on; this.requestRender(); }

    // 确认第 1 步：提示按行钉在日志区底部、输入行上面（不进日志，再多的输出也挤不走），前面是 diff、命令等，最后一行是问题
    showQuestion(prompt: string): void {
        const lines = prompt.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
        if (lines.length === 0) lines.push('确认');
        this.state.question = lines;
        this.requestRender();
    }

    // 确认第 2 步：问题显示了一会儿（InputQueue.answer 等的那段时间），输入行才变成 [y/N]
    promptAnswer(): void {
        this.holdDraft();   // 之前打了一半的字不算回答
        this.setConfirming(true);
    }

    // 确认最后一步：问题连同回答（→ y / → n / → d）记进日志，钉住的问题收起
    answerQuestion(mark: string): void {
        this.recordAnswer(` → ${mark}`);
        this.setConfirming(false);
    }

    // 状态变了就请求重画；请求再多也合并，每秒最多画 60 帧
    requestRender(): void { if (this.running) this.scheduleFrame(); }

    // 立即画一帧（流结束时的最后一帧用它）。只重写和上一帧不同的行，整帧一次写出，不闪烁
    renderNow(): void {
        this.cancelScheduledFrame();
        if (!this.running) return;
        const [cols, rows] = this.size;
        this.state.panel = this.panelLines();
        const lines = renderFrame(this.state, cols, rows);
        const cursor = cursorPosition(this.state, cols, rows);
        let out = '';
        for (let r = 0; r < lines.length; r++) {
            if (lines[r] !== this.previous[r]) out += `\x1b[${r + 1};1H\x1b[2K${lines[r]}`;
        }
        this.writeFrame(out + `\x1b[${cursor.row + 1};${cursor.col + 1}H`);
        this.previous = lines;
    }

    private onData = (chunk: Buffer | string): void => {
        this.handle(this.decoder.feed(chunk));
        this.waitForLoneEsc();
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

    // —— 加固：每条退出路径恢复终端、尺寸变化、合并重绘、单独的 Esc、面板出错、提问前打的字 ——

    private entered = false;   // 终端处在全屏状态，restore 只恢复一次
    private lastFrame = 0;
    private timer: NodeJS.Timeout | null = null;
    private escTimer: NodeJS.Timeout | null = null;
    private draft: string[] | null = null;   // 提问时输入行里已经打了、还没提交的字

    private guardTerminal(): void {
        this.entered = true;
        this.opts.output.on('resize', this.onResize);
        // 'exit' 覆盖 process.exit() 和正常结束；uncaughtExceptionMonitor 在打印崩溃堆栈之前触发，
        // 先恢复终端，堆栈才会留在普通屏幕上而不是随备用屏幕一起消失
        process.on('exit', this.restore);
        process.on('uncaughtExceptionMonitor', this.restore);
    }

    private releaseTerminal(): void {
        for (const t of [this.timer, this.escTimer]) if (t) clearTimeout(t);
        this.timer = this.escTimer = null;
        this.opts.output.off('resize', this.onResize);
        process.off('exit', this.restore);
        process.off('uncaughtExceptionMonitor', this.restore);
        this.restore();
    }

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

    private onResize = (): void => {
        this.previous = [];
        this.renderNow();
    };

    // 合并重绘：不管来了多少次请求，两帧之间至少隔 FRAME_MS
    private scheduleFrame(): void {
        if (this.timer) return;
        // 向上取整：libuv 的定时器按毫秒计，16.4 会被截成 16，帧率就会略超 60
        const wait = Math.max(0, Math.ceil(FRAME_MS - (performance.now() - this.lastFrame)));
        this.timer = setTimeout(() => { this.timer = null; this.renderNow(); }, wait);
    }

    private cancelScheduledFrame(): void {
        if (this.timer) { clearTimeout(this.timer); this.timer = null; }
    }

    // 2026 是“同步输出”：支持的终端整帧一起显示，不支持的会忽略。画的时候藏起光标；上一帧作废时先清屏
    private writeFrame(body: string): void {
        const clear = this.previous.length === 0 ? '\x1b[2J' : '';
        this.opts.output.write(`\x1b[?2026h\x1b[?25l${clear}${body}\x1b[?25h\x1b[?2026l`);
        this.lastFrame = performance.now();
    }

    // 面板文字来自应用层，出错也只显示在面板里，不能让界面崩掉
    private panelLines(): string[] {
        try {
            return this.opts.panel();
        } catch (e) {
            return [`面板出错：${(e as Error).message}`];
        }
    }

    // 末尾剩一个 ESC：等 ESC_WAIT_MS 没有下文，才算 Esc 键（见 KeyDecoder.pending）
    private waitForLoneEsc(): void {
        if (this.escTimer) { clearTimeout(this.escTimer); this.escTimer = null; }
        if (this.decoder.pending) {
            this.escTimer = setTimeout(() => { this.escTimer = null; this.handle(this.decoder.flush()); }, ESC_WAIT_MS);
        }
    }

    // 输入行里 [y/N] 出现之前打的字先收起来、答完放回：只有 [y/N] 出现之后打的字能回答
    private holdDraft(): void {
        this.draft = this.state.input;
        this.state.input = [];
        this.state.cursor = 0;
    }

    // 答完：钉住的问题按行记进日志，最后一行（问题本身）接上 ' → y/n/d'；收起来的字放回输入行
    private recordAnswer(mark: string): void {
        const lines = this.state.question.length ? this.state.question : ['确认'];
        lines.forEach((line, i) => this.state.log.append(i === lines.length - 1 ? line + mark : line, 'tool'));
        this.state.question = [];
        if (this.draft) [this.state.input, this.state.cursor] = [this.draft, this.draft.length];
        this.draft = null;
    }
}

const FRAME_MS = 17;         // 两帧之间的最短间隔：每秒不超过 60 帧
const ESC_WAIT_MS = 30;      // 单独的 ESC 等这么久没有下文，才算 Esc 键
// 退出时按进入的相反顺序关掉，并复位颜色、显示光标
const LEAVE = '\x1b[?2004l\x1b[?1006l\x1b[?1000l\x1b[0m\x1b[?25h\x1b[?1049l';
