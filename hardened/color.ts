// Day 1：终端颜色。stdout 不是终端或设置了 NO_COLOR 时不输出任何转义序列。文字一律先经 visible()：能到终端的转义序列只有这里加的颜色。
import fs from 'node:fs';
import { visible } from './screen-text.ts';

export type Color = 'user' | 'model' | 'tool' | 'system' | 'reasoning' | 'error';

export const CODES: Record<Color, number> = { user: 36, model: 32, tool: 33, system: 90, reasoning: 2, error: 31 };   // Day 7：全屏界面也用

export const colorEnabled = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
stderrBehindStdout();   // agent 2>&1 | … 时两路输出按发生的顺序，见分隔线以下

export function paint(color: Color, text: string, enabled = colorEnabled): string {
    return enabled ? `\x1b[${CODES[color]}m${visible(text)}\x1b[0m` : visible(text);
}

export function out(color: Color, text: string, newline = true): void {
    process.stdout.write(paint(color, text) + (newline ? '\n' : ''));
}

export function err(color: Color, text: string): void {
    process.stderr.write(paint(color, text, Boolean(process.stderr.isTTY) && !process.env.NO_COLOR) + '\n');   // 颜色看 stderr 是不是终端
}

// —— 加固：2>&1 时 stdout 和 stderr 按发生的顺序 ——

/**
 * agent 2>&1 | cat：stdout 和 stderr 是同一个管道，Node 却给两者各开一个异步的写队列。读的一方慢、管道满了时，
 * 先写的 stdout 行在自己的队列里等，后写的 stderr 行一有空位就先进了管道（错误跑进更早的回复中间）；反过来 stderr
 * 在排队时，stdout 的 bye 也能抢在它前面。两者是同一个管道时，stderr 的写入（console.error 也经过它）改排进 stdout
 * 的队列：一个队列只有一种顺序。终端和文件的写入是同步的，没有这个问题；两个不同的管道之间本来就谈不上先后。
 */
function stderrBehindStdout(): void {
    try {
        const [a, b] = [fs.fstatSync(1), fs.fstatSync(2)];
        if (!(a.isFIFO() || a.isSocket()) || a.dev !== b.dev || a.ino !== b.ino) return;
    } catch {
        return;   // fd 1 或 2 是关着的
    }
    process.stderr.write = process.stdout.write.bind(process.stdout);
}
