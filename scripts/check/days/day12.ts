// 第 12 天：代码搜索和网页抓取。fetch 抓的是检查自己在 127.0.0.1 上开的一个小网页服务，不联网。
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { call, tools } from '../../fake-model/replies.ts';
import type { LearnerRun, Place } from '../harness.ts';
import { mark, showMessages, toolNames, toolResult } from '../look.ts';
import { byLastUser } from '../play.ts';
import { Miss, type Check, type Scenario } from '../types.ts';

const SECTION = 'day15/README.md#第-12-天代码搜索和网页抓取';

const NEEDLE = mark('NEEDLE_');
const SEARCH: Scenario = {
    lines: [`找一下 ${NEEDLE} 在哪`, '/exit'],
    files: {
        'src/app.ts': `const a = 1;\nexport const ${NEEDLE} = 42;\n`,
        'node_modules/lib/index.js': `module.exports = '${NEEDLE} 在依赖里';\n`,
        '.cache/old.txt': `${NEEDLE} 在点目录里\n`,
    },
    model: { '找一下': tools(call('call_search_1', 'search', { pattern: NEEDLE })) },
};

const PAGE = mark('PAGE');
const SCRIPT = mark('SCRIPT');
const HTML = `<!doctype html><html><head><title>检查页</title><style>.x { color: red }</style><script>var s = "${SCRIPT}";</script></head>
<body><h1>标题</h1><p>正文 <b>${PAGE}</b> 在这里。</p></body></html>`;

// 一个网页服务给这一天的所有运行：每次运行抓自己的路径（按它的临时目录名），数每个路径收到几个请求（答 n 时应当一个也没有）
const hits = new Map<string, number>();
const site = http.createServer((req, res) => {
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(HTML);
});
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
site.unref();   // 检查跑完就能退出，不等这个服务
const pagePath = (place: Place) => `/${path.basename(place.base)}.html`;
const hitsOf = (run: LearnerRun) => hits.get(pagePath(run.place)) ?? 0;

const fetching = (answer: 'y' | 'n'): Scenario => ({
    lines: ['抓一下这个网页', answer, '/exit'],
    model: (place) => {
        const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}${pagePath(place)}`;
        return byLastUser({ '抓一下': tools(call('call_fetch_1', 'fetch', { url })) });
    },
});

export const checks: Check[] = [
    {
        day: 12,
        name: 'search 在项目里逐行找关键词，结果是「路径:行号: 内容」',
        hint: '注册 search 工具（参数 pattern）：遍历根目录下的文件，逐行找这个字面量，每条命中写成 路径:行号: 这一行',
        section: SECTION,
        scenario: SEARCH,
        expect(run) {
            const result = toolResult(run, 'call_search_1');
            if (!result || !/app\.ts:2\b/.test(result) || !result.includes(`${NEEDLE} = 42`)) {
                throw new Miss(`search「${NEEDLE}」的结果里有 src/app.ts:2: export const ${NEEDLE} = 42;`, result === undefined ? showMessages(run.requests.at(-1)) : `工具结果：${result}`);
            }
        },
    },
    {
        day: 12,
        name: 'search 跳过 node_modules 和点开头的目录',
        hint: '列文件时跳过 node_modules 和名字以 . 开头的文件夹（.git、.geekagent……），否则结果被依赖和缓存占满',
        section: SECTION,
        scenario: SEARCH,
        expect(run) {
            const result = toolResult(run, 'call_search_1') ?? '';
            if (/node_modules|\.cache/.test(result) || !/app\.ts:2\b/.test(result)) {
                throw new Miss('结果里有 src/app.ts 的命中，没有 node_modules/ 和 .cache/ 里的', `工具结果：${result || '（没有）'}`);
            }
        },
    },
    {
        day: 12,
        name: 'fetch 取回网页，HTML 变成纯文字交给模型',
        hint: '注册 fetch 工具（参数 url）：问过用户后用 Node 的 fetch 取回，去掉标签、整段丢掉 <script> 和 <style> 的内容，把文字作为工具结果',
        section: SECTION,
        scenario: fetching('y'),
        expect(run) {
            const hits = hitsOf(run);
            const result = toolResult(run, 'call_fetch_1');
            if (!result?.includes(PAGE) || /<\/?(p|b|body|h1)\b/i.test(result) || result.includes(SCRIPT) || result.includes('color: red')) {
                throw new Miss(`答 y 之后，工具结果是网页的文字（含 ${PAGE}），没有标签、脚本和样式`, `网页服务收到 ${hits} 个请求；工具结果：${result ?? '（没有）'}`);
            }
        },
    },
    {
        day: 12,
        name: 'fetch 先问你：答 n 时一个请求也不发',
        hint: 'fetch 会联网：执行前先问用户（把网址给他看），答的不是 y 就返回「已取消」，不发请求',
        section: SECTION,
        scenario: fetching('n'),
        expect(run) {
            const hits = hitsOf(run);
            if (!toolNames(run.requests[0]).includes('fetch')) throw new Miss('请求的 tools 里有 fetch', `tools：${toolNames(run.requests[0]).join('、') || '（没有）'}`);
            if (hits > 0) throw new Miss('答 n 之后网页服务收不到请求', `网页服务收到 ${hits} 个请求；工具结果：${toolResult(run, 'call_fetch_1') ?? '（没有）'}`);
            if (toolResult(run, 'call_fetch_1') === undefined) throw new Miss('取消的调用也有一条 tool 消息回到对话里', showMessages(run.requests.at(-1)));
        },
    },
];
