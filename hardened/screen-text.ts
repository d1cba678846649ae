// —— 加固：终端控制字符 ——
// Day 1：不可信的文字（模型、工具、文件、网页、MCP）里，换行和 Tab 以外的控制字符显示成 \x1b、\r 这样的转义：
// 清屏、写剪贴板、伪造确认提示的序列因此到不了终端。CRLF 里的 CR 照常放行。
// 双向文字控制符（U+061C、U+200E/F、U+202A–U+202E、U+2066–U+2069）和零宽字符（U+200B–U+200D、U+2060–U+2064、U+FEFF）
// 也显示成 \u202e 这样的转义：按双向算法排版的终端里，它们能把要执行的部分显示成注释、把 [y/N] 挪到别处，
// 零宽字符能让两段不同的文字看起来一模一样。代价：用 U+200D 连起来的组合 emoji（一家人、职业）显示成几个 emoji 夹着 \u200d。
const HIDDEN = /\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

export function visible(text: string): string {
    return text.replace(HIDDEN, (c) => (c === '\r' ? '\\r' : escaped(c.charCodeAt(0))));
}

function escaped(code: number): string {
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
