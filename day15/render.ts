// Day 7：一帧画什么。frame() 是（状态、列数、行数）的纯函数，返回每一个屏幕行（带颜色）：上面是消息日志（终端够宽时
// 右边是用量面板），然后是一条分隔线（右端写着「回复中」「N 条排队」），最下面是输入行。它不碰终端，所以能直接单测。
import { paint, visible, type Color } from './color.ts';
import { fit, width, wrap } from './term.ts';

export interface ScreenState {
    log: { text: string; color: Color }[];   // 日志，一条是一行（已经转义了控制字符，没有 \n）；画的时候按宽度折行
    input: string;       // 输入行里打的字
    prompt: string;      // 'You › '；确认时是 '[y/N] '
    busy: boolean;       // 有一轮正在进行
    queued: number;      // 排队等着处理的行数
    scroll: number;      // 往上翻了几行；0 = 跟着最新的输出
    panel: string[];     // 面板的文字，一项一行
}

export const YOU = 'You › ';
const PANEL = 28;            // 面板宽度：'│ ' 加 26 列
const PANEL_MIN_COLS = 60;   // 终端比这窄就不显示面板

type Row = { text: string; color: Color };

/** 一帧：rows 个屏幕行；scroll 是实际翻到的位置（翻过了头就停在最早的一行）；cursor 是光标在输入行的第几列（从 1 数）。 */
export function frame(s: ScreenState, cols: number, rows: number): { lines: string[]; scroll: number; cursor: number } {
    const panel = cols >= PANEL_MIN_COLS;
    const textCols = Math.max(1, (panel ? cols - PANEL - 1 : cols) - 1);   // 日志左边留一列空白
    const height = Math.max(1, rows - 2);
    const found = lastRows(s.log, textCols, height + s.scroll);
    const scroll = Math.max(0, Math.min(s.scroll, found.length - height));
    const body = found.slice(Math.max(0, found.length - height - scroll), found.length - scroll);
    const lines: string[] = [];
    for (let r = 0; r < height; r++) {
        const row = body[r];
        let line = ` ${row ? paint(row.color, fit(row.text, textCols), true) : ' '.repeat(textCols)}`;
        // 面板里的字可能来自文件夹的配置（模型名、根目录）：先转义控制字符再截断，转义之后的长度才是真的
        if (panel) line += ` ${paint('system', fit(`│ ${visible(s.panel[r] ?? '')}`, PANEL), true)}`;
        lines.push(line);
    }
    const input = inputLine(s, cols);
    return { lines: [...lines, ruleLine(s, cols, scroll), input.text], scroll, cursor: input.cursor };
}

// 从最后一条往回折，够 need 行就停：一帧只折看得见的那几条，日志再长，画一帧的工夫也只和屏幕一样大
function lastRows(log: Row[], cols: number, need: number): Row[] {
    const rows: Row[] = [];
    for (let i = log.length - 1; i >= 0 && rows.length < need; i--) {
        const { text, color } = log[i];
        rows.unshift(...wrap(text, cols).map((row) => ({ text: row, color })));
    }
    return rows;
}

// 分隔线，右端是状态：回复中、排队的行数、往上翻了多少
function ruleLine(s: ScreenState, cols: number, scroll: number): string {
    const parts: string[] = [];
    if (s.busy) parts.push('回复中，Ctrl+C 取消');
    if (s.queued > 0) parts.push(`${s.queued} 条排队`);
    if (scroll > 0) parts.push(`往上翻了 ${scroll} 行，PageDown 回到末尾`);
    const label = parts.length ? ` ${parts.join(' · ')} ──` : '';
    return paint('system', fit('─'.repeat(Math.max(0, cols - width(label))) + label, cols), true);
}

// 输入行：提示符和打的字；太长时只显示末尾（光标在末尾），最后一列留给光标
function inputLine(s: ScreenState, cols: number): { text: string; cursor: number } {
    const room = Math.max(1, cols - width(s.prompt) - 1);
    let shown = Array.from(s.input);
    while (shown.length && width(shown.join('')) > room) shown = shown.slice(1);
    const text = shown.join('');
    return { text: paint(s.prompt === YOU ? 'user' : 'tool', s.prompt, true) + text, cursor: width(s.prompt) + width(text) + 1 };
}
