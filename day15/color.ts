// Day 1：终端颜色。stdout 不是终端或设置了 NO_COLOR 时不输出任何转义序列。文字一律先经 visible()：能到终端的转义序列只有这里加的颜色。
import { visible } from './screen-text.js';

export type Color = 'user' | 'model' | 'tool' | 'system' | 'reasoning' | 'error';

export const CODES: Record<Color, number> = { user: 36, model: 32, tool: 33, system: 90, reasoning: 2, error: 31 };   // Day 7：全屏界面也用

export const colorEnabled = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;

export function paint(color: Color, text: string, enabled = colorEnabled): string {
    return enabled ? `\x1b[${CODES[color]}m${visible(text)}\x1b[0m` : visible(text);
}

export function out(color: Color, text: string, newline = true): void {
    process.stdout.write(paint(color, text) + (newline ? '\n' : ''));
}

export function err(color: Color, text: string): void {
    process.stderr.write(paint(color, text, Boolean(process.stderr.isTTY) && !process.env.NO_COLOR) + '\n');   // 颜色看 stderr 是不是终端
}
