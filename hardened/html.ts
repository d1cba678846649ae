// Day 12：手写的 HTML 转纯文本（fetch 工具和知识库共用）。
// 不做真正的 HTML 解析：只扫一遍标签，目标是“给模型读的正文”，不是还原排版。
// 局限：不认识 CSS 隐藏的内容；<head> 里除 <title> 外的文字也会留下；<pre> 的缩进会被去掉。
// 复杂度：每个正则分支都只会向前吃字符，未闭合的注释/脚本直接吞到结尾，整体是线性的，
// 恶意页面（成千上万个没闭合的 <script>）也不会让它卡死。

/** 内容整个丢掉的标签：脚本、样式，以及浏览器默认不显示的模板。 */
const DROP_CONTENT = new Set(['script', 'style', 'noscript', 'template']);

/** 开始或结束都换行的块级标签；其余标签直接删掉（行内元素的文字会连在一起）。 */
const BLOCK = new Set([
    'p', 'div', 'br', 'hr', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'td', 'th',
    'table', 'thead', 'tbody', 'tfoot', 'caption', 'pre', 'blockquote', 'section', 'article', 'header', 'footer', 'nav',
    'aside', 'main', 'figure', 'figcaption', 'form', 'fieldset', 'details', 'summary', 'title', 'address',
]);

/**
 * 一次只认一种“标签样的东西”：注释、<!DOCTYPE>/<?xml?>、普通标签。
 * 属性里用引号包着的 `>` 不算标签结尾（`<a title="a>b">`）。
 * 没有 `>` 的残缺标签会一直吃到文末——浏览器也是这么处理的。
 */
const TAG = /<!--[\s\S]*?(?:-->|$)|<[!?][^>]*>?|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)(?:[^>"']|"[^"]*"|'[^']*')*>?/g;

/** HTML → 适合模型阅读的纯文本：每行去掉首尾空白、行内连续空白合成一个空格，空行去掉。 */
export function htmlToText(html: string): string {
    const lower = asciiLower(html);   // 找结束标签用：不区分大小写，下标和原文对齐
    const parts: string[] = [];
    let last = 0;
    TAG.lastIndex = 0;
    for (let m = TAG.exec(html); m; m = TAG.exec(html)) {
        parts.push(html.slice(last, m.index));
        last = TAG.lastIndex;
        const name = m[2]?.toLowerCase();
        if (!name) continue;                       // 注释、DOCTYPE：直接丢掉
        if (BLOCK.has(name)) parts.push('\n');
        if (m[1] === '' && DROP_CONTENT.has(name)) TAG.lastIndex = last = pastClosingTag(html, lower, name, last);
    }
    parts.push(html.slice(last));
    return tidyLines(decodeEntities(parts.join('')));
}

/** 每行压缩空白并去掉首尾空格，丢掉空行。 */
function tidyLines(text: string): string {
    const lines: string[] = [];
    for (const raw of text.split(/\r\n|\r|\n/)) {
        const line = raw.replace(/[ \t\f\v\u00a0\u3000]+/g, ' ').trim();
        if (line) lines.push(line);
    }
    return lines.join('\n');
}

// —— 加固：找不到的结束标签、标题、实体的边角、大小写与下标对齐 ——

/**
 * 跳过 script/style 这类标签的内容，返回对应结束标签之后的位置；找不到就说明后面全是脚本，整段丢掉（返回文末）。
 * 和浏览器一样，`<script/>` 的自闭合写法不算数。
 */
function pastClosingTag(html: string, lower: string, name: string, from: number): number {
    const close = lower.indexOf('</' + name, from);
    const end = close < 0 ? -1 : html.indexOf('>', close);
    return end < 0 ? html.length : end + 1;
}

/** 第一个 <title> 的文字（实体已解码、空白合并）；没有就返回空串。 */
export function htmlTitle(html: string): string {
    const lower = asciiLower(html);
    const open = lower.search(/<title[\s>]/);
    if (open < 0) return '';
    const start = html.indexOf('>', open);
    if (start < 0) return '';
    const close = lower.indexOf('</title', start);
    const inner = html.slice(start + 1, close < 0 ? html.length : close);
    // <title> 里不该有标签，万一有也按文字处理之前先剥掉
    return decodeEntities(inner.replace(/<[^>]*(?:>|$)/g, '')).replace(/\s+/g, ' ').trim();
}

/** 常见的命名实体；其余的原样保留，比猜错好。 */
const ENTITIES = new Map(Object.entries({
    lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: ' ',
    copy: '©', reg: '®', trade: '™', deg: '°', plusmn: '±', times: '×', divide: '÷', middot: '·',
    hellip: '…', mdash: '—', ndash: '–', bull: '•', laquo: '«', raquo: '»',
    lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', euro: '€', yen: '¥', pound: '£', cent: '¢',
    sect: '§', para: '¶', larr: '←', rarr: '→', uarr: '↑', darr: '↓', ensp: ' ', emsp: ' ', thinsp: ' ',
}));

/**
 * 解码实体。一遍扫完，解出来的字符不会再被当成实体，
 * 所以 `&amp;lt;` 得到 `&lt;`（和「&amp; 最后解码」效果相同）。
 */
export function decodeEntities(text: string): string {
    return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});/g, (whole, body: string) => {
        if (body[0] !== '#') return ENTITIES.get(body) ?? ENTITIES.get(body.toLowerCase()) ?? whole;
        const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
        // 0、代理区、超出 Unicode 范围的码点都换成替换字符，和浏览器一致
        if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
        return code === 0xa0 ? ' ' : String.fromCodePoint(code);
    });
}

/** 只把 A–Z 转成小写：长度不变，下标能和原文一一对应（toLowerCase 遇到 'İ' 会变长）。 */
function asciiLower(text: string): string {
    return text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}
