// 全屏界面：左边消息日志，右边面板，底部一条分隔线和输入行。
// 分两层：纯逻辑部分（状态、日志、renderFrame、applyKey）不碰终端，可以直接单测；
// 运行时部分（Tui 类）负责原始模式、按键事件、合并重绘和恢复终端。
import {
    KeyDecoder, charWidth, displayWidth, padToWidth, truncateToWidth, wrapText, type Key,
} from './term.js';

export type Color = 'user' | 'model' | 'tool' | 'system' | 'reasoning' | 'error';

const SGR: Record<Color, string> = {
    user: '36', model: '32', tool: '33', system: '90', reasoning: '2', error: '31',
};
const paint = (code: string, text: string): string => `\x1b[${code}m${text}\x1b[0m`;

export const LOG_LIMIT = 1000;      // 日志最多保留的行数（按 append 的行算，不按折行后的屏幕行算）
export const PANEL_WIDTH = 28;      // 面板宽度：'│ ' + 26 列内容
export const PANEL_MIN_COLS = 60;   // 终端比这窄就不显示面板
export const WHEEL_STEP = 3;        // 鼠标滚轮一格滚几行
export const FRAME_MS = 17;         // 两帧之间的最短间隔：每秒不超过 60 帧
const ESC_WAIT_MS = 30;             // 单独的 ESC 等这么久没有下文，才算 Esc 键

// ---------- 日志 ----------

interface Entry {
    text: string;
    color: Color;
    width: number;   // rows 是按这个宽度折出来的
    rows: string[];
    fresh: string;   // 上次折行之后追加的文字
}

// 去掉会搞乱屏幕的控制字符：只保留换行和颜色序列（SGR），Tab 换成空格，\r 丢掉（CRLF 因此变成 \n）
const CONTROL = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x00-\x08\x0b-\x1f\x7f]/g;
function clean(text: string): string {
    return text.replace(/\t/g, '    ').replace(CONTROL, (m) => (/^\x1b\[[0-9;]*m$/.test(m) ? m : ''));
}

// 日志条目用绝对序号 seq 编号：超过上限丢掉旧行时 first 增长，滚动锚点不会因此错位。
// 每条记住自己按某个宽度折好的行，所以一帧只需折可见的那几条，不必每帧重折 1000 行。
export class Log {
    private entries: Entry[] = [];
    first = 0;

    get end(): number {   // 最后一条的下一个序号
        return this.first + this.entries.length;
    }

    get length(): number {
        return this.entries.length;
    }

    text(seq: number): string {
        return this.entries[seq - this.first].text;
    }

    color(seq: number): Color {
        return this.entries[seq - this.first].color;
    }

    append(text: string, color: Color): void {
        for (const line of clean(text).split('\n')) this.push(line, color);
    }

    // 流式输出：颜色相同就接在最后一条后面（里面的换行交给折行处理），否则另起一条
    appendInline(text: string, color: Color): void {
        const last = this.entries[this.entries.length - 1];
        const add = clean(text);
        if (last && last.color === color) {
            last.text += add;
            last.fresh += add;
        } else {
            this.push(add, color);
        }
    }

    rows(seq: number, width: number): string[] {
        const e = this.entries[seq - this.first];
        if (e.width !== width) {
            e.width = width;
            e.rows = wrapText(e.text, width);
        } else if (e.fresh) {
            // 只重折“旧的最后一行 + 新文字”。不去碰 e.text：它是一路 += 出来的长字符串，
            // 一旦按下标读字符，V8 会把整段（可能几百 KB）拍平复制一遍，每帧的开销就跟回复长度挂钩了
            for (const row of wrapText(e.rows.pop()! + e.fresh, width)) e.rows.push(row);
        }
        e.fresh = '';
        return e.rows;
    }

    private push(text: string, color: Color): void {
        this.entries.push({ text, color, width: 0, rows: [], fresh: '' });
        if (this.entries.length > LOG_LIMIT) {
            const drop = this.entries.length - LOG_LIMIT;
            this.entries.splice(0, drop);
            this.first += drop;
        }
    }
}

// ---------- 状态与布局 ----------

export interface Anchor { seq: number; row: number }   // 视图顶行 = 第 seq 条折行后的第 row 行

export interface TuiState {
    log: Log;
    input: string[];        // 按码点存，光标左右移动和退格不会切开代理对
    cursor: number;
    busy: boolean;          // 有回合在跑：Esc / Ctrl+C 取消它
    queued: number;         // 排队等处理的输入条数，显示在分隔线上
    confirming: boolean;    // 提示符变成 [y/N]
    scroll: Anchor | null;  // null = 跟随末尾
    panel: string[];        // 面板文字行，约定见 panelCell
    history: string[];      // 本次运行提交过的输入，↑/↓ 调出
    historyIndex: number;
    draft: string;          // 翻历史前正在编辑的内容
}

export function createState(): TuiState {
    return {
        log: new Log(), input: [], cursor: 0, busy: false, queued: 0, confirming: false,
        scroll: null, panel: [], history: [], historyIndex: 0, draft: '',
    };
}

export function layout(cols: number, rows: number) {
    const panel = cols >= PANEL_MIN_COLS;
    const logWidth = panel ? Math.max(20, cols - PANEL_WIDTH - 1) : cols;
    // 日志左边留 1 列空白，所以真正折行的宽度比日志区少 1
    return { panel, logWidth, textWidth: Math.max(1, logWidth - 1), bodyRows: Math.max(0, rows - 2) };
}

const before = (a: Anchor, b: Anchor): boolean => a.seq < b.seq || (a.seq === b.seq && a.row < b.row);

// 跟随末尾时的视图顶行：从最后一条往回数 height 行，只碰可见的那几条
function tailTop(log: Log, width: number, height: number): Anchor {
    let need = height;
    for (let seq = log.end - 1; seq >= log.first; seq--) {
        const n = log.rows(seq, width).length;
        if (n >= need) return { seq, row: n - need };
        need -= n;
    }
    return { seq: log.first, row: 0 };
}

// 实际的顶行：用户往上翻过且锚点还在末尾那一屏之上时用锚点，否则跟随末尾
function viewTop(state: TuiState, width: number, height: number): Anchor {
    const tail = tailTop(state.log, width, height);
    const s = state.scroll;
    if (!s || !before(s, tail)) return tail;
    if (s.seq < state.log.first) return { seq: state.log.first, row: 0 };   // 锚点那条已被丢弃
    return { seq: s.seq, row: Math.min(s.row, state.log.rows(s.seq, width).length - 1) };
}

// 滚动日志：lines > 0 往上（更早），< 0 往下。滚回末尾那一屏就恢复跟随。
export function scrollLog(state: TuiState, lines: number, cols: number, rows: number): void {
    const { textWidth: w, bodyRows } = layout(cols, rows);
    const log = state.log;
    const tail = tailTop(log, w, bodyRows);
    let { seq, row } = viewTop(state, w, bodyRows);
    row -= lines;
    while (row < 0 && seq > log.first) row += log.rows(--seq, w).length;
    if (row < 0) row = 0;
    while (seq < log.end - 1 && row >= log.rows(seq, w).length) row -= log.rows(seq++, w).length;
    const next = { seq, row };
    state.scroll = before(next, tail) ? next : null;
}

// ---------- 一帧 ----------

// 面板行约定：普通行原样显示；以 '─' 开头的是分节线，例如 '─ 上下文' 画成 '─ 上下文 ────…' 铺满 26 列；
// 空字符串是空行。每行前面是灰色的 '│ '，内容截到 26 列。
function panelCell(text = ''): string {
    const inner = PANEL_WIDTH - 2;
    let body = text;
    if (text.startsWith('─')) {
        const label = text.replace(/^─+\s*/, '');
        body = truncateToWidth(label ? `─ ${label} ` : '', inner);
        body += '─'.repeat(inner - displayWidth(body));
    }
    return paint(SGR.system, '│ ' + padToWidth(body, inner));
}

function ruleRow(state: TuiState, cols: number): string {
    const parts: string[] = [];
    if (state.busy) parts.push('回复中，Esc 取消');
    if (state.queued > 0) parts.push(`${state.queued} 条排队`);
    const label = parts.length ? ` ${parts.join(' · ')} ──` : '';
    const fill = '─'.repeat(Math.max(0, cols - displayWidth(label)));
    return paint(SGR.system, truncateToWidth(fill + label, cols));
}

// 输入行：提示符 + 编辑中的文字。太长时水平滚动，保证光标所在位置可见；最后一列留给光标。
function inputView(state: TuiState, cols: number): { text: string; cursorCol: number } {
    const prompt = state.confirming ? '[y/N] ' : 'You › ';
    const promptWidth = displayWidth(prompt);
    const room = Math.max(1, cols - promptWidth - 1);
    let start = 0;
    let left = 0;   // 光标左边的文字宽度
    for (let i = 0; i < state.cursor; i++) left += charWidth(state.input[i].codePointAt(0)!);
    while (left > room && start < state.cursor) left -= charWidth(state.input[start++].codePointAt(0)!);
    const shown = truncateToWidth(state.input.slice(start).join(''), room);
    const color = state.confirming ? SGR.tool : SGR.user;
    return { text: paint(color, prompt) + shown, cursorCol: Math.min(cols - 1, promptWidth + left) };
}

// 一帧 = (状态, 列数, 行数) 的纯函数，返回每个屏幕行的文字（含颜色）。
// 只折可见范围内的日志条目，所以耗时取决于屏幕大小，而不是日志总长度。
export function renderFrame(state: TuiState, cols: number, rows: number): string[] {
    const L = layout(cols, rows);
    const visible: string[] = [];
    const top = viewTop(state, L.textWidth, L.bodyRows);
    for (let seq = top.seq, row = top.row; seq < state.log.end && visible.length < L.bodyRows; seq++, row = 0) {
        const code = SGR[state.log.color(seq)];
        const wrapped = state.log.rows(seq, L.textWidth);
        for (; row < wrapped.length && visible.length < L.bodyRows; row++) {
            visible.push(paint(code, padToWidth(wrapped[row], L.textWidth)));
        }
    }
    const lines: string[] = [];
    for (let r = 0; r < L.bodyRows; r++) {
        let line = ' ' + (visible[r] ?? ' '.repeat(L.textWidth));
        if (L.panel) line += ' ' + panelCell(state.panel[r]);
        lines.push(line);
    }
    lines.push(ruleRow(state, cols), inputView(state, cols).text);
    return lines.slice(-Math.max(1, rows));
}

export function cursorPosition(state: TuiState, cols: number, rows: number): { row: number; col: number } {
    return { row: Math.max(0, rows - 1), col: inputView(state, cols).cursorCol };   // 从 0 开始
}

// ---------- 按键 ----------

export type Action = { type: 'submit'; line: string } | { type: 'cancel' } | { type: 'exit' } | null;

function insert(state: TuiState, text: string): void {
    const chars = Array.from(text);
    state.input = [...state.input.slice(0, state.cursor), ...chars, ...state.input.slice(state.cursor)];
    state.cursor += chars.length;
}

function setInput(state: TuiState, text: string): void {
    state.input = Array.from(text);
    state.cursor = state.input.length;
}

// 按键对状态的作用（纯逻辑），返回需要应用层处理的动作
export function applyKey(state: TuiState, key: Key, cols: number, rows: number): Action {
    if (key.type === 'text') insert(state, key.text);
    // 粘贴的多行内容是“一条输入”：换行和 Tab 变空格，等用户按回车再提交
    if (key.type === 'paste') insert(state, key.text.replace(/[\n\t]/g, ' ').replace(/[\x00-\x1f\x7f]/g, ''));
    if (key.type !== 'key') return null;
    const page = Math.max(1, layout(cols, rows).bodyRows - 1);
    switch (key.name) {
        case 'enter': {
            const line = state.input.join('').trim();
            setInput(state, '');
            if (line && line !== state.history[state.history.length - 1]) state.history.push(line);
            state.historyIndex = state.history.length;
            // 确认时空回车也交给应用层，由它决定算不算“否”
            return line || state.confirming ? { type: 'submit', line } : null;
        }
        case 'backspace':
            if (state.cursor > 0) state.input.splice(--state.cursor, 1);
            break;
        case 'delete': state.input.splice(state.cursor, 1); break;
        case 'left': state.cursor = Math.max(0, state.cursor - 1); break;
        case 'right': state.cursor = Math.min(state.input.length, state.cursor + 1); break;
        case 'home': state.cursor = 0; break;
        case 'end': state.cursor = state.input.length; break;
        case 'up':
            if (state.historyIndex > 0) {
                if (state.historyIndex === state.history.length) state.draft = state.input.join('');
                setInput(state, state.history[--state.historyIndex]);
            }
            break;
        case 'down':
            if (state.historyIndex < state.history.length) {
                state.historyIndex++;
                setInput(state, state.history[state.historyIndex] ?? state.draft);
            }
            break;
        case 'pageup': scrollLog(state, page, cols, rows); break;
        case 'pagedown': scrollLog(state, -page, cols, rows); break;
        case 'wheelup': scrollLog(state, WHEEL_STEP, cols, rows); break;
        case 'wheeldown': scrollLog(state, -WHEEL_STEP, cols, rows); break;
        case 'escape': return state.busy ? { type: 'cancel' } : null;
        case 'ctrl-c':
            if (state.busy) return { type: 'cancel' };
            if (state.input.length === 0) return { type: 'exit' };
            setInput(state, '');   // 空闲时有内容：先清空，再按一次才退出
            break;
        case 'ctrl-d': return { type: 'exit' };
    }
    return null;
}

// 全屏界面里只有 y（不分大小写）算同意
export function confirmAnswer(line: string): boolean {
    return line.trim().toLowerCase() === 'y';
}

// ---------- 运行时 ----------

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
    frames = 0;   // 已经画过的帧数，基准测试用
    private decoder = new KeyDecoder();
    private previous: string[] = [];
    private clearNext = true;
    private running = false;
    private entered = false;
    private lastFrame = 0;
    private timer: NodeJS.Timeout | null = null;
    private escTimer: NodeJS.Timeout | null = null;
    private question: { seq: number; text: string } | null = null;

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
        this.question = { seq: this.state.log.end - 1, text };
        this.setConfirming(true);
    }

    // 确认最后一步：问题仍是最后一行就在行尾接 ' → y/n'，否则另起一行“问题 → y/n”
    answerQuestion(yes: boolean): void {
        const mark = yes ? ' → y' : ' → n';
        const q = this.question;
        this.question = null;
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
        this.frames++;
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
