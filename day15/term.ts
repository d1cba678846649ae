// Day 7：终端的小工具：字节变成按键，一段文字在终端里占几列，按列数折行、截断。全是纯函数，不碰真实的终端。

export type Key = { type: 'text'; text: string } | { type: 'enter' | 'backspace' | 'ctrl-c' | 'ctrl-d' | 'pageup' | 'pagedown' };

// 原始模式下终端把按键原样送来：回车、退格、Ctrl+C、Ctrl+D 各是一个字节；翻页这类键是 ESC 开头的一串（ESC [ 5 ~）；
// 其余可打印的字符连成一段文字（输入法一次上屏的整句也是一段）。stdin 按 utf8 读，一个汉字的几个字节不会被拆开
const BYTES: Record<string, 'enter' | 'backspace' | 'ctrl-c' | 'ctrl-d'> = {
    '\r': 'enter', '\n': 'enter', '\x7f': 'backspace', '\b': 'backspace', '\x03': 'ctrl-c', '\x04': 'ctrl-d',
};
const SEQUENCES: Record<string, 'pageup' | 'pagedown'> = { '\x1b[5~': 'pageup', '\x1b[6~': 'pagedown' };
// ESC [ 参数 结束字节（CSI，方向键、翻页键……）、ESC O 一个字节（SS3），或者单独一个 ESC、ESC 加一个键（Alt+键）
const ESCAPE = /^\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|.?)/s;
const TEXT = /^[^\x00-\x1f\x7f]+/;

export function decodeKeys(data: string): Key[] {
    const keys: Key[] = [];
    let rest = data;
    while (rest) {
        const match = ESCAPE.exec(rest) ?? TEXT.exec(rest);
        const piece = match?.[0] ?? rest[0];
        if (Object.hasOwn(SEQUENCES, piece)) keys.push({ type: SEQUENCES[piece] });
        else if (Object.hasOwn(BYTES, piece)) keys.push({ type: BYTES[piece] });
        else if (match?.[0] && !piece.startsWith('\x1b')) keys.push({ type: 'text', text: piece });
        // 其余的（方向键、Tab、别的控制字符）这一课不用，跳过
        rest = rest.slice(piece.length);
    }
    return keys;
}

// 东亚宽字符（汉字、假名、谚文、全角符号）和 emoji 在终端里占两列；组合用的附加符号不占列。这是近似：
// 终端自己的宽度表可能略有不同
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3040-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/;
const WIDE_ASTRAL = /[\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]|\p{Emoji_Presentation}/u;
const ZERO = /[\p{Mn}\p{Me}]/u;

export function charWidth(ch: string): number {
    return WIDE.test(ch) || WIDE_ASTRAL.test(ch) ? 2 : ZERO.test(ch) ? 0 : 1;
}

export function width(text: string): number {
    let n = 0;
    for (const ch of text) n += charWidth(ch);
    return n;
}

/** 按显示宽度折行，每行不超过 cols 列：尽量断在空格或宽字符后面（英文单词不从中间断），一个词比一行还长才硬断。 */
export function wrap(line: string, cols: number): string[] {
    const rows: string[] = [];
    let row = '';
    let used = 0;
    let brk = 0;   // 行里最后一个能断开的地方：空格或宽字符的后面
    for (const ch of line) {
        const w = charWidth(ch);
        if (used + w > cols && row) {
            const cut = brk > 1 ? brk : row.length;
            rows.push(row.slice(0, cut));
            row = row.slice(cut);
            used = width(row);
            brk = 0;
        }
        row += ch;
        used += w;
        if (ch === ' ' || w === 2) brk = row.length;
    }
    rows.push(row);
    return rows;
}

/** 截到 cols 列（放不下的宽字符整个不要，不会出现半个字），不够的用空格补齐：每一行正好 cols 列，面板的竖线才对得齐。 */
export function fit(text: string, cols: number): string {
    let out = '';
    let used = 0;
    for (const ch of text) {
        const w = charWidth(ch);
        if (used + w > cols) break;
        out += ch;
        used += w;
    }
    return out + ' '.repeat(Math.max(0, cols - used));
}
