// Day 7：一帧画什么。renderFrame 是 (状态, 列数, 行数) 的纯函数，返回每个屏幕行的文字（含颜色），
// 不碰终端，所以能直接单测；写到终端、只重写变化的行是 tui.ts 的事。
import { CODES, type Color } from './color.ts';
import { visible } from './screen-text.ts';
import { charWidth, displayWidth, padToWidth, truncateToWidth } from './term.ts';
import { logLayout, PANEL_WIDTH, questionRows, viewTop, type TuiState } from './view.ts';

// 全屏界面只在终端里启用，所以总是上色（NO_COLOR 只管行模式的输出）
const colored = (color: Color, text: string): string => `\x1b[${CODES[color]}m${text}\x1b[0m`;

// 从上到下：日志区（够宽时右边是面板；确认中底部钉着问题）、分隔线、输入行。
// 只折可见范围内的日志条目，所以耗时取决于屏幕大小，而不是日志总长度。
export function renderFrame(state: TuiState, cols: number, rows: number): string[] {
    const L = logLayout(state, cols, rows);   // 日志只用上面 logHeight 行，下面是钉住的问题
    const logRows: string[] = [];
    const top = viewTop(state, L.textWidth, L.logHeight);   // 跟随末尾，或用户往上翻到的位置
    for (let seq = top.seq, row = top.row; seq < state.log.end && logRows.length < L.logHeight; seq++, row = 0) {
        const color = state.log.color(seq);
        const wrapped = state.log.rows(seq, L.textWidth);
        for (; row < wrapped.length && logRows.length < L.logHeight; row++) {
            logRows.push(colored(color, padToWidth(wrapped[row], L.textWidth)));
        }
    }
    pinQuestion(state, logRows, L);
    const lines: string[] = [];
    for (let r = 0; r < L.bodyRows; r++) {
        let line = ' ' + (logRows[r] ?? ' '.repeat(L.textWidth));
        if (L.panel) line += ' ' + panelCell(state.panel[r]);
        lines.push(line);
    }
    lines.push(ruleRow(state, cols), inputView(state, cols).text);
    return lines.slice(-Math.max(1, rows));
}

export function cursorPosition(state: TuiState, cols: number, rows: number): { row: number; col: number } {
    return { row: Math.max(0, rows - 1), col: inputView(state, cols).cursorCol };   // 从 0 开始
}

// 分隔线，右端写着状态：回复中、排队条数
function ruleRow(state: TuiState, cols: number): string {
    const parts: string[] = [];
    if (state.busy) parts.push('回复中，Esc 取消');
    if (state.queued > 0) parts.push(`${state.queued} 条排队`);
    const label = parts.length ? ` ${parts.join(' · ')} ──` : '';
    const fill = '─'.repeat(Math.max(0, cols - displayWidth(label)));
    return colored('system', truncateToWidth(fill + label, cols));
}

// 输入行：提示符 + 编辑中的文字；最后一列留给光标。确认时提示符变成 [y/N]
function inputView(state: TuiState, cols: number): { text: string; cursorCol: number } {
    const prompt = state.confirming ? '[y/N] ' : 'You › ';
    const promptWidth = displayWidth(prompt);
    const room = Math.max(1, cols - promptWidth - 1);
    const { start, left } = scrollToCursor(state, room);
    const shown = truncateToWidth(state.input.slice(start).join(''), room);
    const color = state.confirming ? 'tool' : 'user';
    return { text: colored(color, prompt) + shown, cursorCol: Math.min(cols - 1, promptWidth + left) };
}

// —— 加固：长输入水平滚动；面板的分节线和不可信文字；钉住的问题 ——

// 确认中的问题接在日志下面：先用空行把日志区补满，问题就总在分隔线正上方，黄色
function pinQuestion(state: TuiState, logRows: string[], L: { textWidth: number; bodyRows: number; logHeight: number }): void {
    while (logRows.length < L.logHeight) logRows.push(' '.repeat(L.textWidth));
    for (const row of questionRows(state, L.textWidth, L.bodyRows)) logRows.push(colored('tool', padToWidth(row, L.textWidth)));
}

// 输入太长时水平滚动，保证光标所在位置可见：返回从第几个字符开始显示（start）、光标左边的文字宽度（left）
function scrollToCursor(state: TuiState, room: number): { start: number; left: number } {
    let start = 0;
    let left = 0;
    for (let i = 0; i < state.cursor; i++) left += charWidth(state.input[i].codePointAt(0)!);
    while (left > room && start < state.cursor) left -= charWidth(state.input[start++].codePointAt(0)!);
    return { start, left };
}

// 面板行约定：普通行原样显示；以 '─' 开头的是分节线，例如 '─ 上下文' 画成 '─ 上下文 ────…' 铺满 26 列；
// 空字符串是空行。每行前面是灰色的 '│ '，内容截到 26 列。面板文字可能来自项目配置（根目录、MCP 服务器名），控制字符要变成可见的转义。
function panelCell(text = ''): string {
    const inner = PANEL_WIDTH - 2;
    let body = visible(text);
    if (body.startsWith('─')) {
        const label = body.replace(/^─+\s*/, '');
        body = truncateToWidth(label ? `─ ${label} ` : '', inner);
        body += '─'.repeat(inner - displayWidth(body));
    }
    return colored('system', '│ ' + padToWidth(body, inner));
}
