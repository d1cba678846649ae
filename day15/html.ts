// Day 12：手写的 HTML 转文字（fetch 和第 14 天的知识库共用）。不做真正的 HTML 解析：给模型读的只要正文，不是还原排版。
// 扫一遍「像标签的东西」：块级标签变成换行，<script>、<style> 这类连内容一起丢掉，其余标签删掉，最后解码几个常见实体。

// 内容整段丢掉的标签：脚本、样式和浏览器本来就不显示的
const DROP = new Set(['script', 'style', 'noscript', 'template']);
// 前后换行的块级标签；别的标签（<b>、<a>……）直接删掉，文字连在一起
const BLOCK = new Set(['p', 'div', 'br', 'li', 'tr', 'td', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'section', 'title']);
// 一个正则认三样东西：注释、<!DOCTYPE> 这类声明、普通标签（m[1] 是结束标签的 /，m[2] 是标签名）。
// 属性值里引号括着的 > 不算标签的结尾：<a title="a>b">。没有结尾的注释、标签一直吃到文末（浏览器也这样）：
// 每个正则分支都只往前吃，一遍扫完，成千上万个没闭合的 <div 也不会让它越扫越慢
const TAG = /<!--[\s\S]*?(?:-->|$)|<![^>]*>?|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)(?:[^>"']|"[^"]*"|'[^']*')*>?/g;
const ENTITIES = new Map(Object.entries({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: ' ' }));

export function htmlToText(html: string): string {
    const lower = html.replace(/[A-Z]+/g, (s) => s.toLowerCase());   // 找结束标签用：只转 A–Z，下标和原文对得上
    const parts: string[] = [];
    let last = 0;
    TAG.lastIndex = 0;
    for (let m = TAG.exec(html); m; m = TAG.exec(html)) {
        parts.push(html.slice(last, m.index));
        last = TAG.lastIndex;
        const name = m[2]?.toLowerCase();
        if (name && BLOCK.has(name)) parts.push('\n');
        if (name && !m[1] && DROP.has(name)) {
            // 跳到结束标签之后；找不到结束标签就说明后面全是脚本，整段丢掉
            const close = lower.indexOf(`</${name}`, last);
            const end = close < 0 ? -1 : html.indexOf('>', close);
            TAG.lastIndex = last = end < 0 ? html.length : end + 1;
        }
    }
    parts.push(html.slice(last));
    return decodeEntities(parts.join(''))
        .split('\n')
        .map((line) => line.replace(/\s+/g, ' ').trim())   // 行内连续的空白合成一个空格
        .filter(Boolean)
        .join('\n');
}

/** &lt; &#39; &#x4e2d; 这样的实体；认不出的原样留着，比猜错好。一遍扫完：&amp;lt; 得到 &lt;，不会再解一次。 */
function decodeEntities(text: string): string {
    return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]+);/gi, (whole, body: string) => {
        if (body[0] !== '#') return ENTITIES.get(body.toLowerCase()) ?? whole;
        const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    });
}
