// Day 7：全屏界面的运行时：占下终端（原始模式、备用屏幕），按键改状态，状态一变就按 render.ts 重画一帧。
// 离开时——/exit、Ctrl+D、信号、process.exit()、程序崩溃——一定把终端恢复原样：否则回到 shell 后打的字不显示、回车不换行。
import { visible, type Color } from './color.ts';
import { frame, YOU, type ScreenState } from './render.ts';
import { decodeKeys, type Key } from './term.ts';

export interface ScreenHooks {
    submit(line: string): void;   // 回车提交一行（确认时空行也提交：空行就是「否」）
    interrupt(): void;            // Ctrl+C：忙时，或者输入行是空的时
    quit(): void;                 // Ctrl+D
    panel(): string[];            // 面板的文字，每画一帧取一次
}

// 进入备用屏幕：离开时原来的终端内容原样回来。离开时先复位颜色、显示光标，再回到原来的屏幕
const ENTER = '\x1b[?1049h';
const LEAVE = '\x1b[0m\x1b[?25h\x1b[?1049l';

export class Screen {
    readonly state: ScreenState = { log: [], input: '', prompt: YOU, busy: false, queued: 0, scroll: 0, panel: [] };
    private readonly hooks: ScreenHooks;
    private active = false;
    private previous: string[] = [];   // 上一帧的各行：只重写变了的行，不闪
    private drawing = false;           // 已经约好了下一帧
    private open = false;              // 最后一条日志是流式输出，还能接着写
    private held = '';                 // 确认时收起来的、问题出现之前打的字

    constructor(hooks: ScreenHooks) {
        this.hooks = hooks;
    }

    start(): void {
        this.active = true;
        process.stdin.setRawMode(true);   // 原始模式：按键一个个送来，终端不回显、不处理，Ctrl+C 也只是一个字节
        process.stdin.setEncoding('utf8').on('data', this.onData).resume();
        process.stdout.on('resize', this.redraw);
        // 'exit' 管 process.exit() 和正常结束；uncaughtExceptionMonitor 在打印崩溃的堆栈之前：堆栈留在原来的屏幕上看得见。
        // SIGTERM、SIGHUP 由 index.ts 走正常的退出流程，流程里调用 stop()。SIGKILL 谁也拦不住，那时用 reset 命令恢复终端
        process.on('exit', this.restore);
        process.on('uncaughtExceptionMonitor', this.restore);
        process.stdout.write(ENTER);
        this.redraw();
    }

    stop(): void {
        process.stdin.off('data', this.onData).pause();   // 不再读 stdin，进程才能自然结束
        process.stdout.off('resize', this.redraw);
        this.restore();
    }

    /**
     * 加进日志：一行一条。inline 是流式输出的一块：颜色和最后一条相同、它又还没结束，就接在它后面。
     * 不可信的文字（模型、工具、文件）里的控制字符显示成转义，Tab 换成空格（它占几列没法算）。
     */
    append(text: string, color: Color, inline = false): void {
        const log = this.state.log;
        const [first, ...rest] = text.split(/\r?\n/).map((line) => visible(line.replace(/\t/g, '    ')));
        const last = log.at(-1);
        if (inline && this.open && last?.color === color) last.text += first;
        else log.push({ text: first, color });
        for (const line of rest) log.push({ text: line, color });
        this.open = inline;
        this.refresh();
    }

    endReply(): void {
        this.open = false;
    }

    /** 改几项状态（回复中、排队的行数）并重画。 */
    set(patch: Partial<ScreenState>): void {
        Object.assign(this.state, patch);
        this.refresh();
    }

    /** 确认：输入行变成 [y/N]，已经打在行里的字收起来（它们是问题出现之前打的，不算回答），视图回到末尾。可以再调用一次。 */
    ask(): void {
        this.held += this.state.input;
        this.state.input = '';
        this.state.prompt = '[y/N] ';
        this.state.scroll = 0;
        this.refresh();
    }

    /** 答完：提示符换回 You ›，收起来的字放回输入行。 */
    answered(): void {
        this.state.prompt = YOU;
        this.state.input = this.held;
        this.held = '';
        this.refresh();
    }

    /** 状态变了：约好下一帧。同一轮事件循环里的许多改动（一次网络读取带来的几十个增量）只画一帧。 */
    refresh(): void {
        if (this.drawing || !this.active) return;
        this.drawing = true;
        setImmediate(() => {
            this.drawing = false;
            this.draw();
        });
    }

    private draw(): void {
        if (!this.active) return;
        const rows = process.stdout.rows || 24;
        this.state.panel = this.hooks.panel();
        const next = frame(this.state, process.stdout.columns || 80, rows);
        this.state.scroll = next.scroll;
        let out = '';
        next.lines.forEach((line, r) => {
            if (line !== this.previous[r]) out += `\x1b[${r + 1};1H\x1b[2K${line}`;   // 移到第 r 行、清掉它、写新的
        });
        process.stdout.write(`${out}\x1b[${rows};${next.cursor}H`);   // 整帧一次写出，光标停在输入行
        this.previous = next.lines;
    }

    // 终端大小变了：上一帧作废，清屏重画
    private redraw = (): void => {
        this.previous = [];
        process.stdout.write('\x1b[2J');
        this.draw();
    };

    private onData = (data: string): void => {
        for (const key of decodeKeys(data)) applyKey(this.state, key, this.hooks);
        this.refresh();
    };

    // 恢复终端；只做一次（stop() 和 'exit' 事件都会调用）。stdin 已经关了时 setRawMode 会抛错：恢复终端要尽力而为
    private restore = (): void => {
        if (!this.active) return;
        this.active = false;
        try {
            process.stdin.setRawMode(false);
        } catch { /* stdin 已经不在了 */ }
        process.stdout.write(LEAVE);
    };
}

/** 一个按键对状态的作用；要入口处理的（提交、取消、退出）交给 hooks。 */
function applyKey(s: ScreenState, key: Key, hooks: ScreenHooks): void {
    const page = Math.max(1, (process.stdout.rows || 24) - 3);
    if (key.type === 'text') s.input += key.text;
    else if (key.type === 'backspace') s.input = Array.from(s.input).slice(0, -1).join('');
    else if (key.type === 'enter') {
        const line = s.input.trim();
        s.input = '';
        if (line || s.prompt !== YOU) hooks.submit(line);   // 空行只在确认时提交：它就是「否」
    } else if (key.type === 'ctrl-c') {
        if (s.busy || !s.input) hooks.interrupt();
        else s.input = '';   // 空闲时输入行里有字：先清掉，再按一次才退出
    } else if (key.type === 'ctrl-d') hooks.quit();
    else if (key.type === 'pageup') s.scroll += page;
    else s.scroll = Math.max(0, s.scroll - page);   // pagedown
}
