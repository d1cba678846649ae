// Day 1：终端颜色。stdout 不是终端或设置了 NO_COLOR 时不输出任何转义序列。
export type Color = 'user' | 'model' | 'tool' | 'system' | 'reasoning' | 'error';

export const CODES: Record<Color, number> = { user: 36, model: 32, tool: 33, system: 90, reasoning: 2, error: 31 };

export const colorEnabled = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;

export function paint(color: Color, text: string): string {
    return colorEnabled ? `\x1b[${CODES[color]}m${text}\x1b[0m` : text;
}

export function out(color: Color, text: string, newline = true): void {
    process.stdout.write(paint(color, text) + (newline ? '\n' : ''));
}

export function err(color: Color, text: string): void {
    process.stderr.write((process.stderr.isTTY && !process.env.NO_COLOR ? `\x1b[${CODES[color]}m${text}\x1b[0m` : text) + '\n');
}
