// Day 7：全屏界面的状态和布局，以及日志的哪一段在屏幕上（滚动）。
// 纯逻辑，不碰终端：渲染（render.ts）和按键（editor.ts）都只读写这里的 TuiState。
import { Log, printableRows } from './log.ts';

export const PANEL_WIDTH = 28;      // 面板宽度：'│ ' + 26 列内容
const PANEL_MIN_COLS = 60;          // 终端比这窄就不显示面板

export interface TuiState {
    log: Log;
    input: string[];        // 按码点存，光标左右移动和退格不会切开代理对
    cursor: number;
    busy: boolean;          // 有回合在跑：Esc / Ctrl+C 取消它
    queued: number;         // 排队等处理的输入条数，显示在分隔线上
    confirming: boolean;    // 提示符变成 [y/N]
    question: string[];     // 确认中的提示（按行），钉在日志区底部
    scroll: Anchor | null;  // null = 跟随末尾
    panel: string[];        // 面板文字行，约定见 render.ts 的 panelCell
    history: string[];      // 本次运行提交过的输入，↑/↓ 调出
    historyIndex: number;
    draft: string;          // 翻历史前正在编辑的内容
}

export function createState(): TuiState {
    return {
        log: new Log(), input: [], cursor: 0, busy: false, queued: 0, confirming: false,
        scroll: null, panel: [], history: [], historyIndex: 0, draft: '', question: [],
    };
}

export function layout(cols: number, rows: number) {
    const panel = cols >= PANEL_MIN_COLS;
    const logWidth = panel ? Math.max(20, cols - PANEL_WIDTH - 1) : cols;
    // 日志左边留 1 列空白，所以真正折行的宽度比日志区少 1
    return { panel, textWidth: Math.max(1, logWidth - 1), bodyRows: Math.max(0, rows - 2) };
}

// —— 加固：滚动（翻页、滚轮），往上翻时新内容不打扰视图；钉住的问题放不下时 ——

export interface Anchor { seq: number; row: number }   // 视图顶行 = 第 seq 条折行后的第 row 行

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

// 视图顶行：用户往上翻过且锚点还在末尾那一屏之上时用锚点，否则跟随末尾
export function viewTop(state: TuiState, width: number, height: number): Anchor {
    const tail = tailTop(state.log, width, height);
    const s = state.scroll;
    if (!s || !before(s, tail)) return tail;
    if (s.seq < state.log.first) return { seq: state.log.first, row: 0 };   // 锚点那条已被丢弃
    return { seq: s.seq, row: Math.min(s.row, state.log.rows(s.seq, width).length - 1) };
}

// 滚动日志：lines > 0 往上（更早），< 0 往下。滚回末尾那一屏就恢复跟随。
export function scrollLog(state: TuiState, lines: number, cols: number, rows: number): void {
    const { textWidth: w, logHeight } = logLayout(state, cols, rows);
    const log = state.log;
    const tail = tailTop(log, w, logHeight);
    let { seq, row } = viewTop(state, w, logHeight);
    row -= lines;
    while (row < 0 && seq > log.first) row += log.rows(--seq, w).length;
    if (row < 0) row = 0;
    while (seq < log.end - 1 && row >= log.rows(seq, w).length) row -= log.rows(seq++, w).length;
    const next = { seq, row };
    state.scroll = before(next, tail) ? next : null;
}

const MIN_LOG_ROWS = 3;   // 钉住的问题再长，日志区也至少留三分之一、不少于这么多行：回答 d 翻出来的全文在日志里看

/** 布局之外再算日志区的高度：确认中，问题钉在日志区底部，日志只用上面剩下的行（跟随末尾、翻页都按它算）。 */
export function logLayout(state: TuiState, cols: number, rows: number) {
    const L = layout(cols, rows);
    return { ...L, logHeight: L.bodyRows - questionRows(state, L.textWidth, L.bodyRows).length };
}

/**
 * 钉住的问题按宽度折好的行（不可信的文字，和日志一样显示控制字符的转义）。放不下时留开头、最后一行（问题本身），
 * 中间换成一行说明：回答 d 能分页看到全文，所以没有哪一行是看不到的。
 */
export function questionRows(state: TuiState, width: number, bodyRows: number): string[] {
    const rows = state.question.flatMap((line) => printableRows(line, width));
    const room = Math.max(1, bodyRows - Math.max(MIN_LOG_ROWS, Math.floor(bodyRows / 3)));
    if (rows.length <= room) return rows;
    if (room < 3) return rows.slice(-room);
    const note = `…（还有 ${rows.length - room + 2} 行这里放不下，回答 d 分页查看全文）`;   // 太宽的部分画的时候截掉
    return [...rows.slice(0, room - 2), note, rows[rows.length - 1]];
}
