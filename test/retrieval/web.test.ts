// 网页抓取：在 127.0.0.1 的随机端口上起一个本地服务器，不连外网。
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { checkUrl, fetchText, formatFetchResult } from '../../hardened/web.ts';

let server: http.Server;
let base = '';

const PAGE = '<html><head><title> Tom &amp; Jerry </title><script>var x = 1;</script></head>'
    + '<body><h1>你好</h1><p>第一段</p></body></html>';

before(async () => {
    server = http.createServer((req, res) => {
        switch (req.url) {
            case '/page':
                res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
                return;
            case '/redirect':
                res.writeHead(302, { Location: '/page' }).end();
                return;
            case '/plain':
                res.writeHead(200, { 'Content-Type': 'text/plain' }).end('原样 <b>保留</b>\n');
                return;
            case '/gbk':
                // "你好" 的 GBK 编码，响应头里声明 charset
                res.writeHead(200, { 'Content-Type': 'text/html; charset=gbk' }).end(Buffer.from([0x3c, 0x70, 0x3e, 0xc4, 0xe3, 0xba, 0xc3]));
                return;
            case '/long':
                res.writeHead(200, { 'Content-Type': 'text/plain' }).end('字'.repeat(2500));
                return;
            case '/slow':
                return;   // 永远不回答（after 里断开）：抓取能返回，只能是它自己的超时起了作用
            default:
                res.writeHead(404, 'Not Found', { 'Content-Type': 'text/plain' }).end('nope');
        }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
    server.closeAllConnections();
    server.close();
});

test('HTML 页面：标题、正文（脚本丢掉）', async () => {
    const r = await fetchText(`${base}/page`);
    assert.ok(r.ok);
    assert.equal(r.title, 'Tom & Jerry');
    assert.equal(r.text, 'Tom & Jerry\n你好\n第一段');
    assert.equal(r.isHtml, true);
    assert.equal(formatFetchResult(r), 'Tom & Jerry\n你好\n第一段');
});

test('跟随重定向，url 是最终地址', async () => {
    const r = await fetchText(`${base}/redirect`);
    assert.ok(r.ok);
    assert.equal(r.url, `${base}/page`);
    assert.equal(r.title, 'Tom & Jerry');
});

test('非 HTML 原样返回，标题为空', async () => {
    const r = await fetchText(`${base}/plain`);
    assert.ok(r.ok);
    assert.equal(r.text, '原样 <b>保留</b>\n');
    assert.equal(r.title, '');
    assert.equal(r.isHtml, false);
});

test('按响应头的 charset 解码', async () => {
    const r = await fetchText(`${base}/gbk`);
    assert.ok(r.ok);
    assert.equal(r.text, '你好');
});

test('HTTP 错误：知识库用的简短说明 + fetch 工具的带状态文字版本', async () => {
    const r = await fetchText(`${base}/missing`);
    assert.equal(r.ok, false);
    assert.ok(!r.ok);
    assert.equal(r.kind, 'http');
    assert.equal(r.message, '抓取失败：HTTP 404');
    assert.equal(formatFetchResult(r), '请求失败：HTTP 404 Not Found');
});

test('超时：服务器一直不回答，到时限就返回', async () => {
    const r = await fetchText(`${base}/slow`, 200);
    assert.ok(!r.ok);
    assert.equal(r.kind, 'timeout');
    assert.equal(r.message, '抓取超时（0.2s），请稍后再试');
});

test('连接失败：带上真正的原因', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await fetchText(`http://127.0.0.1:${port}/`);
    assert.ok(!r.ok);
    assert.equal(r.kind, 'network');
    assert.match(r.message, /^抓取失败：.*ECONNREFUSED/);
});

test('URL 校验：空、无法解析、非 http(s)', async () => {
    assert.equal(checkUrl(''), '缺少参数：url');
    assert.equal(checkUrl('not a url'), '无效的 URL：not a url');
    assert.equal(checkUrl('ftp://example.com/x'), '只支持 http/https 链接');
    assert.equal(checkUrl('file:///etc/passwd'), '只支持 http/https 链接');
    assert.equal(checkUrl('https://example.com'), null);
    const r = await fetchText('ftp://example.com/x');
    assert.ok(!r.ok);
    assert.equal(r.kind, 'input');
    assert.equal(formatFetchResult(r), '只支持 http/https 链接');
});

test('超过 2000 字符截断并注明总长；抓取结果本身保留全文', async () => {
    const r = await fetchText(`${base}/long`);
    assert.ok(r.ok);
    assert.equal(formatFetchResult(r), '字'.repeat(2000) + '\n…(已截断，共 2500 个字符)');
    assert.equal(r.text, '字'.repeat(2500));
    assert.equal(r.text.length, 2500);
});
