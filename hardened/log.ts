// Day 7：全屏界面的消息日志：一条条带颜色的文字，画的时候按屏幕宽度折行。
import type { Color } from './color.ts';
import { visible } from './screen-text.ts';
import { wrapText } from './term.ts';

// 日志条目用绝对序号 seq 编号：超过上限丢掉旧行时 first 增长，滚动锚点不会因此错位。
export class Log {
    private entries: Entry[] = [];
    first = 0;

    get end(): number {   // 最后一条的下一个序号
        return this.first + this.entries.length;
    }

    color(seq: number): Color {
        return this.entries[seq - this.first].color;
    }

    append(text: string, color: Color): void {
        for (const line of printable(text).split('\n')) this.push(line, color);
    }

    // 流式输出：颜色相同就接在最后一条后面（里面的换行交给折行处理），否则另起一条
    appendInline(text: string, color: Color): void {
        const last = this.entries[this.entries.length - 1];
        const add = printable(text);
        if (last && last.color === color) {
            last.text += add;
            last.fresh += add;   // 折行缓存只重折新来的这段，见 wrapCached
        } else {
            this.push(add, color);
        }
    }

    // 第 seq 条按 width 列折成的屏幕行
    rows(seq: number, width: number): string[] {
        return wrapCached(this.entries[seq - this.first], width);
    }

    private push(text: string, color: Color): void {
        this.entries.push({ text, color, width: 0, rows: [], fresh: '' });
        this.dropOverLimit();
    }

    // —— 加固：行数上限、不可信文字、按宽度缓存折行 ——

    private dropOverLimit(): void {
        if (this.entries.length <= LOG_LIMIT) return;
        const drop = this.entries.length - LOG_LIMIT;
        this.entries.splice(0, drop);
        this.first += drop;
    }
}

export const LOG_LIMIT = 1000;   // 日志最多保留的行数（按 append 的行算，不按折行后的屏幕行算）

interface Entry {
    text: string;
    color: Color;
    width: number;   // rows 是按这个宽度折出来的
    rows: string[];
    fresh: string;   // 上次折行之后追加的文字
}

// 日志里的文字都不可信：控制字符一律显示成 \x1b 这样的转义，连颜色序列（比如隐藏文字的 \x1b[8m）也不放过，
// 颜色只由条目的 Color 决定。CRLF 变成 \n，Tab 换成空格
function printable(text: string): string {
    return visible(text.replace(/\r\n/g, '\n').replace(/\t/g, '    '));
}

// 日志之外的不可信文字（钉在日志区底部的确认问题）按同样的规则变成可见的文字，再按宽度折行
export function printableRows(text: string, width: number): string[] {
    return wrapText(printable(text), width);
}

// 每条记住自己按某个宽度折好的行，所以一帧只需折可见的那几条，不必每帧重折 1000 行。
// 贪心折行往末尾追加文字时只有最后一行会变，所以流式输出只重折“旧的最后一行 + 新文字”
function wrapCached(e: Entry, width: number): string[] {
    if (e.width !== width) {
        e.width = width;
        e.rows = wrapText(e.text, width);
    } else if (e.fresh) {
        // 不去碰 e.text：它是一路 += 出来的长字符串，一旦按下标读字符，
        // V8 会把整段（可能几百 KB）拍平复制一遍，每帧的开销就跟回复长度挂钩了
        for (const row of wrapText(e.rows.pop()! + e.fresh, width)) e.rows.push(row);
    }
    e.fresh = '';
    return e.rows;
}
