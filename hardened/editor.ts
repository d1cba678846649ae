// Day 7：输入行的编辑。按键对状态的作用是纯逻辑：改 TuiState，返回需要应用层处理的动作。
import type { Key, KeyName } from './term.ts';
import { logLayout, scrollLog, type TuiState } from './view.ts';

export type Action = { type: 'submit'; line: string } | { type: 'cancel' } | { type: 'exit' } | null;

// 翻页要知道一屏有几行，所以也要终端大小
export function applyKey(state: TuiState, key: Key, cols: number, rows: number): Action {
    if (key.type === 'text') insert(state, key.text);
    if (key.type === 'paste') insert(state, pastedLine(key.text));
    if (key.type !== 'key') return null;
    switch (key.name) {
        case 'enter': {
            const line = state.input.join('').trim();
            setInput(state, '');
            remember(state, line);   // ↑/↓ 能调出来
            // 确认时空回车也交给应用层，由它决定算不算“否”
            return line || state.confirming ? { type: 'submit', line } : null;
        }
        case 'backspace':
            if (state.cursor > 0) state.input.splice(--state.cursor, 1);
            break;
        case 'left': state.cursor = Math.max(0, state.cursor - 1); break;
        case 'right': state.cursor = Math.min(state.input.length, state.cursor + 1); break;
        case 'escape': return state.busy ? { type: 'cancel' } : null;
        case 'ctrl-c':
            if (state.busy) return { type: 'cancel' };
            if (state.input.length === 0) return { type: 'exit' };
            setInput(state, '');   // 空闲时有内容：先清空，再按一次才退出
            break;
        case 'ctrl-d': return { type: 'exit' };
        default: moreKeys(state, key.name, cols, rows);   // ↑/↓ 历史、Delete、Home/End、翻页、滚轮
    }
    return null;
}

function insert(state: TuiState, text: string): void {
    const chars = Array.from(text);
    state.input = [...state.input.slice(0, state.cursor), ...chars, ...state.input.slice(state.cursor)];
    state.cursor += chars.length;
}

function setInput(state: TuiState, text: string): void {
    state.input = Array.from(text);
    state.cursor = state.input.length;
}

// —— 加固：粘贴、输入历史、Delete / Home / End、翻页与滚轮 ——

const WHEEL_STEP = 3;   // 鼠标滚轮一格滚几行

// 粘贴的多行内容是“一条输入”：换行和 Tab 变空格，等用户按回车再提交
function pastedLine(text: string): string {
    return text.replace(/[\n\t]/g, ' ').replace(/[\x00-\x1f\x7f]/g, '');
}

// 本次运行提交过的输入，连续重复的只记一次
function remember(state: TuiState, line: string): void {
    if (line && line !== state.history[state.history.length - 1]) state.history.push(line);
    state.historyIndex = state.history.length;
}

function moreKeys(state: TuiState, name: KeyName, cols: number, rows: number): void {
    const page = Math.max(1, logLayout(state, cols, rows).logHeight - 1);
    switch (name) {
        case 'up':   // 翻到历史之前，先把正在编辑的内容存成草稿
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
        case 'delete': state.input.splice(state.cursor, 1); break;
        case 'home': state.cursor = 0; break;
        case 'end': state.cursor = state.input.length; break;
        case 'pageup': scrollLog(state, page, cols, rows); break;
        case 'pagedown': scrollLog(state, -page, cols, rows); break;
        case 'wheelup': scrollLog(state, WHEEL_STEP, cols, rows); break;
        case 'wheeldown': scrollLog(state, -WHEEL_STEP, cols, rows); break;
    }
}
