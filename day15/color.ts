// Day 1：终端输出。颜色只在 stdout 是终端、又没有设置 NO_COLOR 时才加；任何文字都先经过 visible()。
export type Color = 'user' | 'model' | 'tool' | 'system' | 'reasoning' | 'error';

const CODES: Record<Color, number> = { user: 36, model: 32, tool: 33, system: 90, reasoning: 2, error: 31 };

export const colorEnabled = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;

// 模型的话是不可信的文字：它可能原样转述了网页、文件里别人埋下的内容（之后的工具结果、文件内容也一样）。终端会执行其中的
// 转义序列：\x1b[2J 清屏，\r 加 \x1b[2K 擦掉这一行、换上一行伪造的确认提示。所以换行和 Tab 以外的控制字符都显示成
// \x1b、\r 这样的转义；双向文字控制符（U+202E 能把一段字倒过来显示）和零宽字符也一样。CRLF 里的 \r 照常放行
const HIDDEN = /\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

export function visible(text: string): string {
    return text.replace(HIDDEN, (c) => (c === '\r' ? '\\r' : escaped(c.charCodeAt(0))));
}

const escaped = (code: number) => (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);

// 先转义再上色：能到达终端的转义序列只有这里加的颜色
export function paint(color: Color, text: string, enabled = colorEnabled): string {
    return enabled ? `\x1b[${CODES[color]}m${visible(text)}\x1b[0m` : visible(text);
}

export function out(color: Color, text: string, newline = true): void {
    process.stdout.write(paint(color, text) + (newline ? '\n' : ''));
}

// 错误和重试的提示写到 stderr：stdout 被重定向到文件时，它们照样出现在终端上
export function err(color: Color, text: string): void {
    process.stderr.write(paint(color, text, Boolean(process.stderr.isTTY) && !process.env.NO_COLOR) + '\n');
}
