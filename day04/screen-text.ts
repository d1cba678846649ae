// Day 1：不可信的文字（模型、工具、文件、网页、MCP）里，换行和 Tab 以外的控制字符显示成 \x1b、\r 这样的转义：
// 清屏、写剪贴板、伪造确认提示的序列因此到不了终端。CRLF 里的 CR 照常放行。
export function visible(text: string): string {
    return text.replace(/\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g, (c) => (c === '\r' ? '\\r' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}
