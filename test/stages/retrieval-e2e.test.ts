// Day 12–14 的检索功能：经真实入口、管道输入、假 OpenAI 服务验证 search、fetch、知识库和记忆自动召回。
// 网页来自测试里起的本地 HTTP 服务（127.0.0.1 随机端口），不连外网。
// 没有端到端测“慢页面超时”：fetch 的超时写死 15 秒，这里不等；同样的超时逻辑由
// test/retrieval/web.test.ts 用 200 ms 的超时覆盖。html、bm25、search、web 的细节也都在那边。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { runAgent, toolMessages, userTexts } from '../helpers/agent.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { HARDENED_ONLY, startStage } from '../helpers/run-stage.ts';
import { ownState, workdir } from '../helpers/workdir.ts';

const systemText = (body: any): string => (body.messages[0].role === 'system' ? body.messages[0].content : '');
const count = (text: string, part: string) => text.split(part).length - 1;

const PAGE = '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title> 上下文压缩 &amp; 阈值 </title>'
    + '<style>body { color: red }</style></head>\n<body><h1>历史压缩</h1>'
    + '<p>压缩阈值默认是 4000 个字符，超过后把旧消息合并成一条摘要。</p>'
    + '<ul><li>保留最近 6 条消息</li></ul><script>alert("x")</script></body></html>';
const TITLE = '上下文压缩 & 阈值';
// <title> 也是块级标签，所以标题作为第一行留在正文里
const PAGE_TEXT = `${TITLE}\n历史压缩\n压缩阈值默认是 4000 个字符，超过后把旧消息合并成一条摘要。\n保留最近 6 条消息`;
const PLAIN = 'raw <b>tags</b> stay\n纯文本页面\n';

/** 2000 个字符的 Markdown：关键句在 1900 附近，只落在第 3 块（800 一块，步长 720：0、720、1440）。 */
const filler = (n: number) => 'lorem ipsum '.repeat(Math.ceil(n / 12)).slice(0, n);
const DOC_A = filler(1900) + '召回上限是 4 条知识块。' + filler(88);

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 搜索、抓取、知识库与记忆召回（端到端）`, () => {
        let web: http.Server;
        let base = '';
        const seen: string[] = [];   // 本地网页服务收到的请求路径

        before(async () => {
            web = http.createServer((req, res) => {
                seen.push(req.url ?? '');
                switch (req.url) {
                    case '/notes.html':
                        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
                        return;
                    case '/go':
                        res.writeHead(302, { Location: '/notes.html' }).end();
                        return;
                    case '/plain.txt':
                        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end(PLAIN);
                        return;
                    default:
                        res.writeHead(404, 'Not Found', { 'Content-Type': 'text/plain' }).end('nope');
                }
            });
            await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
            base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
        });
        after(async () => {
            web.closeAllConnections();
            await new Promise<void>((resolve) => web.close(() => resolve()));
        });
        beforeEach(() => {
            seen.length = 0;
        });

        test('fetch：同意后返回转成文字的页面；跟随重定向；404 带状态；纯文本原样；非 http 链接不问就拒绝', async () => {
            const r = await runAgent(stage, { input: ['抓几个网页', 'y', 'y', 'y', 'y', '还有吗'], replies: [
                tools(
                    call('call_fetch1', 'fetch', { url: `${base}/notes.html` }),
                    call('call_fetch2', 'fetch', { url: `${base}/go` }),
                    call('call_fetch3', 'fetch', { url: `${base}/missing` }),
                    call('call_fetch4', 'fetch', { url: 'file:///etc/passwd' }),
                    call('call_fetch5', 'fetch', { url: `  ${base}/plain.txt  ` }),
                ),
                text('抓完了'),
                text('没有了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 3);
            const [page, redirected, missing, local, plain] = toolMessages(r.requests[1].body).map((m) => m.content);
            assert.equal(page, PAGE_TEXT);
            assert.equal(redirected, PAGE_TEXT);
            assert.equal(missing, '请求失败：HTTP 404 Not Found');
            assert.equal(local, '只支持 http/https 链接');
            assert.equal(plain, PLAIN);
            assert.deepEqual(seen, ['/notes.html', '/go', '/notes.html', '/missing', '/plain.txt']);
            // 四个 http 链接各问一次，file: 链接没有问、也没有吞掉下一行输入
            assert.equal(count(r.stdout, '[y/N]'), 4, r.stdout);
            assert.ok(r.stdout.includes(`即将抓取：\n${base}/notes.html\n主机：${new URL(base).host}（本机地址）\n确认抓取？`), r.stdout);
            assert.deepEqual(userTexts(r.requests[2].body), ['抓几个网页', '还有吗']);
        });

        test('fetch：拒绝 → 已取消抓取，本地服务一个请求都没收到', async () => {
            const r = await runAgent(stage, { input: ['抓一下', 'n'], replies: [
                tools(call('call_fetch6', 'fetch', { url: `${base}/notes.html` })),
                text('好吧'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(toolMessages(r.requests[1].body)[0].content, '已取消抓取');
            assert.deepEqual(seen, []);
            assert.match(r.stdout, /好吧/);
        });

        test('教程原话：收进知识库再问压缩阈值 → todo_write、rag_add（确认）、rag_search、回答；再收同一网址跳过', async () => {
            const cwd = workdir();
            const url = `${base}/notes.html`;
            const question = `把 ${url} 收进知识库，然后告诉我里面的压缩阈值`;
            const todos = [{ content: '收录网页', status: 'in_progress' }, { content: '检索压缩阈值并回答', status: 'pending' }];
            const r = await runAgent(stage, { cwd, input: [question, 'y', '再收一次', 'yes'], replies: [
                tools(call('call_todo_write1', 'todo_write', { todos })),
                tools(call('call_add', 'rag_add', { source: url })),
                tools(call('call_search', 'rag_search', { query: '压缩阈值' })),
                text('文档里说压缩阈值默认是 4000 个字符。'),
                tools(call('call_again', 'rag_add', { source: url })),
                text('已经收过了。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 6);
            // 「然后」让第一个请求强制 todo_write
            assert.deepEqual(r.requests[0].body.tool_choice, { type: 'function', function: { name: 'todo_write' } });
            const results = new Map(toolMessages(r.requests[3].body).map((m) => [m.tool_call_id, m.content]));
            assert.equal(results.get('call_add'), `已加入知识库：「${TITLE}」— ${PAGE_TEXT.length} 个字符 / 1 块`);
            assert.equal(results.get('call_search'), `匹配到 1 块：\n1. 「${TITLE}」第 1 段：${PAGE_TEXT}`);
            assert.ok(r.stdout.includes(`即将收录到知识库：\n${url}\n主机：${new URL(url).host}（本机地址）\n确认收录？`), r.stdout);
            assert.match(r.stdout, /文档里说压缩阈值默认是 4000 个字符。/);

            // 第二次收录同一来源：照样先问，然后跳过，不再抓取
            assert.equal(toolMessages(r.requests[5].body).find((m) => m.tool_call_id === 'call_again').content, '已在知识库中，跳过');
            assert.deepEqual(seen, ['/notes.html']);

            const index = JSON.parse(fs.readFileSync(path.join(cwd, '.geekagent/rag/index.json'), 'utf8'));
            assert.equal(index.docs.length, 1);
            const [doc] = index.docs;
            assert.equal(doc.title, TITLE);
            assert.equal(doc.source, url);
            assert.equal(new Date(doc.addedAt).toISOString(), doc.addedAt);
            assert.deepEqual(doc.chunks, [{ start: 0, text: PAGE_TEXT }]);
        });

        test('rag_add：404 与非 HTML 网址；目录内文件可以收录，../ 越界被拒；检索结果带标题和段号', async () => {
            const cwd = workdir({ 'docs/a.md': DOC_A });
            const r = await runAgent(stage, { cwd, input: ['收录这些', 'y', 'y', 'y', 'y', '查一下'], replies: [
                tools(
                    call('call_rag_add1', 'rag_add', { source: `${base}/missing` }),
                    call('call_rag_add2', 'rag_add', { source: `${base}/plain.txt` }),
                    call('call_rag_add3', 'rag_add', { source: 'docs/a.md' }),
                    call('call_rag_add4', 'rag_add', { source: '../x' }),
                ),
                text('收好了'),
                tools(call('call_rag_search1', 'rag_search', { query: '召回上限' })),
                text('上限是 4 条'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            const [missing, plain, file, outside] = toolMessages(r.requests[1].body).map((m) => m.content);
            assert.equal(missing, '收录失败：抓取失败：HTTP 404');
            assert.equal(plain, `已加入知识库：「${base}/plain.txt」— ${PLAIN.length} 个字符 / 1 块`);
            assert.equal(file, `已加入知识库：「a.md」— ${DOC_A.length} 个字符 / 3 块`);
            assert.equal(outside, '收录失败：路径越界：../x');
            const search = toolMessages(r.requests[3].body).at(-1).content;
            assert.match(search, /^匹配到 1 块：\n1\. 「a\.md」第 3 段：/);
            assert.ok(search.endsWith(DOC_A.slice(1440)), search);

            const index = JSON.parse(fs.readFileSync(path.join(cwd, '.geekagent/rag/index.json'), 'utf8'));
            assert.deepEqual(index.docs.map((d: any) => [d.title, d.source]), [[`${base}/plain.txt`, `${base}/plain.txt`], ['a.md', 'docs/a.md']]);
            assert.deepEqual(index.docs[1].chunks.map((c: any) => c.start), [0, 720, 1440]);
        });

        test('/rag 统计、/rag add 逐个询问（下一行回答）；重启后知识库还在；命令不请求模型', async () => {
            const cwd = workdir({ 'docs/a.md': DOC_A, 'notes.txt': '一些笔记\n' });
            const r = await runAgent(stage, { cwd, input: ['/rag', '/rag add docs/a.md notes.txt', 'y', 'n', '/rag', '/rag remove x'] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 0);
            assert.match(r.stdout, /知识库是空的/);
            assert.ok(r.stdout.includes(`[已加入知识库：「a.md」— ${DOC_A.length} 个字符 / 3 块]`), r.stdout);
            assert.ok(r.stdout.includes('[已取消收录]'), r.stdout);
            assert.equal(count(r.stdout, '[y/N]'), 2);
            const stats = `知识库：1 篇文档 / 3 块 / ${DOC_A.length} 个字符：\n1. 「a.md」（3 块，docs/a.md）`;
            assert.ok(r.stdout.includes(stats), r.stdout);
            assert.match(r.stdout, /用法：\/rag/);

            const again = await runAgent(stage, { cwd, input: ['/rag'] });
            assert.equal(again.code, 0, again.stderr);
            assert.ok(again.stdout.includes(stats), again.stdout);
        });

        test('知识库文件读不了：启动报错、退出码 1、文件原样保留；缺字段的文档读入时丢掉', async () => {
            const broken = workdir({ '.geekagent/rag/index.json': '{"docs": [' });
            const r = await runAgent(stage, { cwd: broken, input: ['/rag'] });
            assert.equal(r.code, 1);
            assert.match(r.stderr, /读取知识库失败/);
            assert.equal(fs.readFileSync(path.join(broken, '.geekagent/rag/index.json'), 'utf8'), '{"docs": [');

            const doc = { title: 'ok.md', source: 'ok.md', addedAt: '2024-01-01T00:00:00.000Z', chunks: [{ start: 0, text: '保留的文档' }] };
            const partial = workdir({ '.geekagent/rag/index.json': JSON.stringify({ docs: [doc, { source: 'x' }, { title: 'no chunks' }] }) });
            ownState(partial, '.geekagent/rag/index.json');
            const ok = await runAgent(stage, { cwd: partial, input: ['/rag'] });
            assert.equal(ok.code, 0, ok.stderr);
            assert.ok(ok.stdout.includes('知识库：1 篇文档 / 1 块 / 5 个字符：\n1. 「ok.md」（1 块，ok.md）'), ok.stdout);
        });

        test('search：命中格式 路径:行号: 内容；跳过二进制、大文件、点目录和 node_modules；path 越界被拒', async () => {
            const cwd = workdir({
                'README.md': 'Needle docs\n',
                'src/app.ts': 'const Needle = 1;\n// nothing here\nexport function findNeedle() {}   \n',
                'src/deep/nested/util.ts': 'first\n  needle in nested\t\n',
                'src/.cache/c.txt': 'needle cached\n',
                'bin/blob.bin': Buffer.concat([Buffer.from('needle\n'), Buffer.from([0, 1, 2])]),
                'big/huge.txt': 'needle\n' + 'x'.repeat(1024 * 1024 + 10),
                '.hidden/secret.txt': 'needle hidden\n',
                'node_modules/pkg/index.js': 'needle module\n',
            });
            const r = await runAgent(stage, { cwd, input: ['找 needle'], replies: [
                tools(
                    call('call_search1', 'search', { pattern: 'NEEDLE' }),
                    call('call_search2', 'search', { pattern: 'needle', path: 'src/deep' }),
                    call('call_search3', 'search', { pattern: 'needle', path: '../' }),
                    call('call_search4', 'search', { pattern: 'zzz-none', path: 'src' }),
                ),
                text('找到了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            const [all, sub, outside, none] = toolMessages(r.requests[1].body).map((m) => m.content);
            assert.equal(all, [
                '匹配 "NEEDLE" 共 4 行：',
                'README.md:1: Needle docs',
                'src/app.ts:1: const Needle = 1;',
                'src/app.ts:3: export function findNeedle() {}',
                'src/deep/nested/util.ts:2:   needle in nested',
            ].join('\n'));
            assert.equal(sub, '匹配 "needle" 共 1 行：\nsrc/deep/nested/util.ts:2:   needle in nested');
            assert.match(outside, /路径越界：\.\.\//);
            assert.equal(none, '没有找到 "zzz-none" 的匹配（在 src 下）。含密钥的文件不搜，要看用 read（密钥会脱敏）');
            assert.doesNotMatch(r.stdout, /\[y\/N\]/, 'search 默认放行，不询问');
        });

        test('记忆自动召回：上一个进程写下的记忆，只在相关的那一轮进入系统提示', async () => {
            const cwd = workdir();
            const facts = ['项目的压缩阈值设置为 4000 个字符', 'The deploy target is kubernetes cluster alpha', '用户喜欢用 pnpm 管理依赖'];
            const wrote = await runAgent(stage, { cwd, input: ['记住这些'], replies: [
                tools(...facts.map((content, i) => call(`call_w${i}`, 'memory_write', { content }))),
                text('记住了'),
            ] });
            assert.equal(wrote.code, 0, wrote.stderr);
            assert.deepEqual(toolMessages(wrote.requests[1].body).map((m) => m.content), facts.map((f) => `已记住：${f}`));
            assert.deepEqual(JSON.parse(fs.readFileSync(path.join(cwd, '.geekagent/memory.json'), 'utf8')), facts);

            const r = await runAgent(stage, { cwd, input: ['压缩阈值是多少？', '今天天气不错'], replies: [
                tools(call('call_memory_search1', 'memory_search', { query: '压缩阈值' })),
                text('4000 个字符'),
                text('是啊'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 3);
            const recalled = systemText(r.requests[0].body);
            assert.ok(recalled.includes('自动召回的长期记忆（仅本轮有效'), recalled);
            assert.ok(recalled.includes(`自动召回了 1 条相关记忆（仅供参考）：\n1. （第 1 条，第 1 块）${facts[0]}`), recalled);
            assert.ok(!recalled.includes('kubernetes') && !recalled.includes('pnpm'), recalled);
            // 同一轮里工具调用之后的请求仍带着本轮的召回
            assert.ok(systemText(r.requests[1].body).includes(facts[0]));
            assert.equal(toolMessages(r.requests[1].body)[0].content, `找到 1 条相关记忆：\n1. （第 1 条，第 1 块）${facts[0]}`);
            // 没有相关记忆的一轮：没有召回段落
            const plain = systemText(r.requests[2].body);
            assert.ok(plain.length > 0);
            assert.ok(!plain.includes('自动召回'), plain);
            assert.ok(!plain.includes(facts[0]), plain);
        });

        test('memory_write：5000 字符只存前 4000 并注明截断；再写一遍算重复；memory_search 标出条目和块号', async () => {
            const cwd = workdir({ '.geekagent/memory.json': JSON.stringify(['先前的一条记忆']) });
            ownState(cwd, '.geekagent/memory.json');
            // 关键词在 1050 处：记忆按 320 一块、步长 240 切，只有从 960 开始的第 5 块包含它
            const long = filler(1050) + 'zebra42' + filler(5000 - 1057);
            const r = await runAgent(stage, { cwd, input: ['记一段长文', '再记一次', '找 zebra'], replies: [
                tools(call('call_memory_write2', 'memory_write', { content: long })),
                text('记好了'),
                tools(call('call_memory_write3', 'memory_write', { content: long })),
                text('已经有了'),
                tools(call('call_memory_search2', 'memory_search', { query: 'ZEBRA42' })),
                text('找到了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            const saved = JSON.parse(fs.readFileSync(path.join(cwd, '.geekagent/memory.json'), 'utf8'));
            assert.equal(saved.length, 2);
            assert.equal(saved[0], '先前的一条记忆');
            assert.equal(saved[1], long.slice(0, 4000));
            const [first, second, search] = toolMessages(r.requests[5].body).map((m) => m.content);
            assert.equal(first, `已记住（过长已截断）：${long.slice(0, 4000)}`);
            assert.equal(second, '这条记忆已经存在');
            assert.match(search, /^找到 1 条相关记忆：\n1\. （第 2 条，第 5 块）/);
            assert.ok(search.includes('zebra42'));
            // 「找 zebra」这一轮的召回：英文词按子串包含计，zebra 命中同一块
            assert.ok(systemText(r.requests[4].body).includes('（第 2 条，第 5 块）'));
        });

        test('memory_write：截断处恰好是空白时，重启后再写同一段长文仍算重复', async () => {
            const cwd = workdir();
            // 第 4000 个字符是空格：截断后的条目以空白结尾，下次启动读入时会被 trim
            const long = 'x'.repeat(3999) + ' ' + 'y'.repeat(1000);
            const write = tools(call('call_w', 'memory_write', { content: long }));
            const first = await runAgent(stage, { cwd, input: ['记一下'], replies: [write, text('好')] });
            assert.equal(first.code, 0, first.stderr);
            assert.match(toolMessages(first.requests[1].body)[0].content, /^已记住（过长已截断）：x{3999}$/);
            const again = await runAgent(stage, { cwd, input: ['再记一下'], replies: [write, text('好')] });
            assert.equal(again.code, 0, again.stderr);
            assert.equal(toolMessages(again.requests[1].body)[0].content, '这条记忆已经存在');
            assert.deepEqual(JSON.parse(fs.readFileSync(path.join(cwd, '.geekagent/memory.json'), 'utf8')), ['x'.repeat(3999)]);
        });

        test('抓取之后模型请求卡住时收到 SIGTERM：本轮回滚，之前的对话照样保存，最后打印 bye', async () => {
            const cwd = workdir();
            const fake = await startFakeOpenAI({ replies: [text('第一轮的回答'), tools(call('call_f', 'fetch', { url: `${base}/notes.html` })), { kind: 'hang', text: '半截' }] });
            // 排在后面的「三」让主循环在退出流程进行中醒来：它不能再触发一次（强制、不保存的）退出
            const run = startStage(stage, { input: ['一', '二', 'y', '三'], cwd, env: { OPENAI_BASE_URL: fake.url } });
            // 第三个请求到了假服务（它只回半句、永远不结束）：这时请求一定还在进行中
            await fake.waitForRequest(3);
            run.child.kill('SIGTERM');
            const r = await run.done.finally(() => fake.close());
            assert.equal(r.code, 0, r.stderr);
            assertNoRejections(fake);
            assert.match(r.stdout, /本轮已撤销/);
            assert.match(r.stdout, /退出前已保存 1 个对话/);
            assert.match(r.stdout, /bye\n$/);
            const saved = JSON.parse(fs.readFileSync(path.join(cwd, '.geekagent/sessions.json'), 'utf8'));
            assert.deepEqual(saved.sessions[saved.current], [
                { role: 'user', content: '一' },
                { role: 'assistant', content: '第一轮的回答' },
            ]);
        });
    });
}
