// npm run model 显示的文字（Agent 发来的消息、工具结果、请求头）都不可信：规则和各阶段的 screen-text.ts 一样，
// 换行和 Tab 以外的控制字符、双向文字控制符、零宽字符显示成 \x1b、\u202e 这样的转义，写剪贴板、改窗口标题、清屏的序列到不了终端。
// scripts/ 不引用阶段目录里的代码（每个阶段自成一体），所以这里照着写一份；改规则时两边一起改。
const HIDDEN = /\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

export function visible(text: string): string {
    return text.replace(HIDDEN, (c) => (c === '\r' ? '\\r' : escaped(c.charCodeAt(0))));
}

function escaped(code: number): string {
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
