// HTML 转文字与标题提取。
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeEntities, htmlTitle, htmlToText } from '../../hardened/html.ts';

test('块级标签换行，行内标签删除，空行去掉', () => {
    const html = '<div><h1>标题</h1><p>第一段 <b>加粗</b><a href="/x">链接</a></p><p>第二段</p></div>';
    assert.equal(htmlToText(html), '标题\n第一段 加粗链接\n第二段');
});

test('script/style/noscript/template 的内容和注释整段丢掉（不区分大小写）', () => {
    const html = '<p>前</p><SCRIPT type="x">var a = "<p>不该出现</p>";</SCRIPT><style>p{color:red}</style>'
        + '<noscript>请开启 JS</noscript><template><p>模板</p></template><!-- 注释 <p>也不要</p> --><p>后</p>';
    assert.equal(htmlToText(html), '前\n后');
});

test('br/hr 的各种写法、li、表格单元格都换行', () => {
    assert.equal(htmlToText('a<br>b<BR/>c<br />d<hr>e'), 'a\nb\nc\nd\ne');
    assert.equal(htmlToText('<ul><li>一</li><li>二</li></ul>'), '一\n二');
    assert.equal(htmlToText('<table><tr><th>名</th><td>值</td></tr></table>'), '名\n值');
});

test('实体：常见命名、十进制、十六进制；&amp;lt; 只解一层', () => {
    assert.equal(decodeEntities('&lt;a&gt; &quot;x&quot; &#39;y&#39; &amp;lt; &#20013;&#x6587; &copy; &unknown;'),
        '<a> "x" \'y\' &lt; 中文 © &unknown;');
    assert.equal(decodeEntities('&#0; &#xD800; &#x110000;'), '\ufffd \ufffd \ufffd');
    assert.equal(decodeEntities('&constructor;'), '&constructor;');
    // 实体解出来的尖括号不会再被当成标签
    assert.equal(htmlToText('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>'), '<script>alert(1)</script>');
});

test('每行压缩空白并去掉首尾空白，&nbsp; 当空格', () => {
    assert.equal(htmlToText('<p>  a \t\t b&nbsp;&nbsp;c  </p>\n\n\n   \n<p>d</p>'), 'a b c\nd');
});

test('属性里的 > 不会提前结束标签；DOCTYPE 去掉', () => {
    assert.equal(htmlToText('<!DOCTYPE html><a title="x > y" data-z=\'>\'>文字</a>'), '文字');
});

test('残缺输入：未闭合的注释/脚本吞到结尾，孤立的 < 保留', () => {
    assert.equal(htmlToText('<p>开头</p><!-- 没有结尾'), '开头');
    assert.equal(htmlToText('<p>开头</p><script>for(;;){}'), '开头');
    assert.equal(htmlToText('1 < 2 and 3 > 2'), '1 < 2 and 3 > 2');
});

test('线性时间：大量未闭合的 <script、<!--、引号也很快', () => {
    const evil = '<script>'.repeat(20_000) + '<!--'.repeat(20_000) + '<a "'.repeat(20_000) + '<b'.repeat(20_000);
    // 量的是本进程用掉的 CPU 时间，不是墙上时间：机器再忙（别的进程抢 CPU），这个数也不会变大。线性的实现约 0.1 秒，平方级的要好几秒
    const cpu0 = process.cpuUsage();
    htmlToText(evil);
    htmlToText('<p>x</p>'.repeat(50_000));
    htmlTitle('<title>' + '<x'.repeat(50_000));
    const cpu = process.cpuUsage(cpu0);
    assert.ok((cpu.user + cpu.system) / 1000 < 1000, '应在 1 秒 CPU 时间内完成');
});

test('htmlTitle：解码实体、合并空白、去掉首尾空白；没有则为空串', () => {
    assert.equal(htmlTitle('<html><head><TITLE lang="zh">\n  Tom &amp; Jerry\n  的故事 </TITLE></head></html>'), 'Tom & Jerry 的故事');
    assert.equal(htmlTitle('<p>无标题</p>'), '');
    assert.equal(htmlTitle('<titlebar>不是标题</titlebar>'), '');
});
