// 状态不丢：坏掉的存档（sessions、undo、知识库）不让命令崩溃、不丢当前对话；类型不对的消息载入时修好；
// /save 之后退出只存一份；漏网的错误先保存再退出；fetch 重定向到别的站点要再问一次。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI, type RecordedRequest } from '../../scripts/fake-model/server.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { noTmux, Terminal } from '../helpers/terminal.ts';
import { ownState, workdir } from '../helpers/workdir.ts';

// 发给模型的对话：Day 11 起最前面多一条每次重建的 system 消息，这里去掉（存档里的 system 消息留着）
const convo = (body: any): any[] => body.messages.filter((m: any, i: number) => !(i === 0 && m.role === 'system'));
// 模型回显用户最后一句：测试不必关心回复队列的顺序
const echo = (req: RecordedRequest) => text(`收到：${convo(req.body).filter((m) => m.role === 'user').at(-1)?.content}`);

/** 预加载脚本：第二次发请求时在事件循环里抛一个没人接的错误，模拟程序某处的 bug。返回 NODE_OPTIONS。 */
function crashOnSecondRequest(cwd: string): string {
    const hook = path.join(cwd, 'crash.mjs');
    fs.writeFileSync(hook, [
        'const real = globalThis.fetch;',
        'let n = 0;',
        'globalThis.fetch = (...args) => {',
        '    if (++n < 2) return real(...args);',
        "    setImmediate(() => { throw new Error('注入的错误'); });",
        '    return new Promise(() => {});',
        '};',
    ].join('\n'));
    return `--import=${pathToFileURL(hook).href}`;
}

const readJson = (cwd: string, rel: string) => JSON.parse(fs.readFileSync(path.join(cwd, rel), 'utf8'));
const SESSIONS = '.geekagent/sessions.json';

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 状态不丢`, () => {
        test('类型不对的消息 /load 时修好，下一轮请求合法；坏的 undo.json 只让 /undo 报错', async () => {
            const stored = [
                { role: 'user', content: 42 },
                { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }] },
                { role: 'tool', content: '没有 id 的结果' },
                { role: 'developer', content: '开发者说明' },
                { role: 'assistant', content: ['片段'] },
            ];
            const cwd = workdir({
                [SESSIONS]: JSON.stringify({ current: 'old', sessions: { old: stored } }),
                '.geekagent/undo.json': '{"path": 7}',
            });
            ownState(cwd, SESSIONS, '.geekagent/undo.json');   // 这个用户的 Agent 写的，后来被改坏了
            const r = await runAgent(stage, { cwd, input: ['/load', '/undo', '继续'], replies: echo });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /（存档里有 5 条消息格式不对，已修正后载入；文件本身没有改动）/);
            assert.match(r.stderr, /撤销失败：撤销记录格式无效/);
            assert.deepEqual(convo(r.requests[0].body), [
                { role: 'user', content: '42' },
                { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }] },
                { role: 'tool', tool_call_id: 'c1', content: '（存档里缺少这次调用的结果）' },
                { role: 'system', content: '开发者说明' },
                { role: 'assistant', content: '["片段"]' },
                { role: 'user', content: '继续' },
            ]);
            assert.equal(readJson(cwd, SESSIONS).sessions.old.length, 7);
        });

        test('sessions.json 损坏：原文件不动，这次的对话另存到新文件并给出路径，改名后能 /load', async () => {
            const corrupt = '{"current": "work", "sessions": {"work": [ {"role": "user"';
            const cwd = workdir({ [SESSIONS]: corrupt });
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: echo });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(fs.readFileSync(path.join(cwd, SESSIONS), 'utf8'), corrupt);
            const m = /（这次的对话另存到 (\S+\.json)，改名为 sessions\.json 后可以 \/load）/.exec(r.stderr);
            assert.ok(m, r.stderr);
            assert.equal(path.dirname(m[1]), path.join(cwd, '.geekagent'));
            const rescued = JSON.parse(fs.readFileSync(m[1], 'utf8'));
            assert.deepEqual(rescued.sessions[rescued.current], [
                { role: 'user', content: '你好' },
                { role: 'assistant', content: '收到：你好' },
            ]);
            fs.renameSync(m[1], path.join(cwd, SESSIONS));
            const again = await runAgent(stage, { cwd, input: ['/load', '还在吗'], replies: echo });
            assert.equal(again.code, 0, again.stderr);
            assert.deepEqual(convo(again.requests[0].body).map((x) => x.content), ['你好', '收到：你好', '还在吗']);
        });

        test('漏网的错误：先保存对话、报错，再以退出码 1 结束；之前 /save 过的 default 只存一份', async () => {
            const cwd = workdir();
            const r = await runAgent(stage, { cwd, input: ['第一句', '/save', '第二句'], replies: echo, env: { NODE_OPTIONS: crashOnSecondRequest(cwd) } });
            assert.equal(r.code, 1, r.stdout);
            assert.match(r.stderr, /程序出错：Error: 注入的错误/);
            assert.match(r.stdout, /（退出前已保存 1 个对话到 .*sessions\.json）/);
            const id = /（对话 id：([0-9a-f]{8})/.exec(r.stdout)?.[1];
            assert.ok(id, r.stdout);
            // /save 时存成了 default，退出时改名为 id：文件里只留一份，不会两处都有
            const archive = readJson(cwd, SESSIONS);
            assert.deepEqual(Object.keys(archive.sessions), [id]);
            assert.equal(archive.current, id);
            assert.deepEqual(archive.sessions[id].slice(0, 2), [
                { role: 'user', content: '第一句' },
                { role: 'assistant', content: '收到：第一句' },
            ]);
        });

        test('全屏界面（tmux）里漏网的错误：终端恢复、对话已保存、退出码 1', { skip: noTmux }, async () => {
            const cwd = workdir();
            const fake = await startFakeOpenAI({ replies: echo });
            const term = new Terminal(stage, { cols: 100, rows: 30, cwd, env: { OPENAI_BASE_URL: fake.url, NODE_OPTIONS: crashOnSecondRequest(cwd) } });
            try {
                await term.shows('/help');
                term.enter('第一句');
                await term.shows('收到：第一句');
                term.enter('第二句');
                const screen = (await term.exited()).join('\n');
                assert.match(screen, /MARKER-BEFORE/, '退出后应回到普通屏幕');
                assert.match(screen, /程序出错：Error: 注入的错误/);
                assert.match(screen, /EXITED-1/);
                const archive = readJson(cwd, SESSIONS);
                assert.deepEqual(archive.sessions[archive.current][1], { role: 'assistant', content: '收到：第一句' });
            } finally {
                term.close();
                await fake.close();
            }
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 知识库存档与跨站重定向`, () => {
        let home: http.Server;
        let away: http.Server;
        let homeUrl = '';
        let awayUrl = '';
        const awaySeen: string[] = [];
        before(async () => {
            away = http.createServer((req, res) => {
                awaySeen.push(req.url ?? '');
                res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('另一个站点的内容');
            });
            home = http.createServer((req, res) => {
                if (req.url === '/same') res.writeHead(302, { Location: '/page' }).end();
                else if (req.url === '/cross') res.writeHead(301, { Location: `${awayUrl}/landing` }).end();
                else res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('本站的内容');
            });
            for (const server of [home, away]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
            homeUrl = `http://127.0.0.1:${(home.address() as AddressInfo).port}`;
            awayUrl = `http://127.0.0.1:${(away.address() as AddressInfo).port}`;
        });
        after(() => {
            home.close();
            away.close();
        });

        test('知识库里缺标题、坏块的文档：/rag 照常报告，rag_add 之后它们仍在磁盘上', async () => {
            const docs = [
                { source: 'untitled.md', addedAt: '2024-01-01T00:00:00.000Z', chunks: [{ start: 0, text: '没有标题的文档' }] },
                { title: '坏块', source: 'bad.md', chunks: [null, { start: 0 }] },
                { title: '没有块' },
            ];
            const cwd = workdir({ '.geekagent/rag/index.json': JSON.stringify({ docs }), 'new.md': '新收录的文档' });
            ownState(cwd, '.geekagent/rag/index.json');
            const r = await runAgent(stage, { cwd, input: ['/rag', '/rag add new.md', 'y', '/rag'] });
            assert.equal(r.code, 0, r.stderr);
            assert.doesNotMatch(r.stdout + r.stderr, /Cannot read|TypeError/);
            assert.ok(r.stdout.includes('知识库：2 篇文档 / 1 块 / 7 个字符：\n1. 「untitled.md」（1 块，untitled.md）\n2. 「坏块」（0 块，bad.md）\n（另有 1 篇文档格式不对，没有载入；文件里保留原样）'), r.stdout);
            assert.match(r.stdout, /已加入知识库：「new\.md」/);
            const saved = readJson(cwd, '.geekagent/rag/index.json').docs;
            assert.deepEqual(saved.slice(0, 3), docs);
            assert.equal(saved[3].source, 'new.md');
        });

        test('fetch：同站重定向照跟；跨站重定向再问一次，拒绝就只报告目标地址，同意才去抓', async () => {
            awaySeen.length = 0;
            const r = await runAgent(stage, {
                input: ['抓三个网页', 'y', 'y', 'n', 'y', 'y'],
                replies: [
                    tools(call('same', 'fetch', { url: `${homeUrl}/same` }), call('cross1', 'fetch', { url: `${homeUrl}/cross` }), call('cross2', 'fetch', { url: `${homeUrl}/cross` })),
                    text('好了'),
                ],
            });
            assert.equal(r.code, 0, r.stderr);
            const asked = r.stdout.split(`${homeUrl}/cross 重定向到另一个站点，即将抓取：\n${awayUrl}/landing\n主机：${new URL(awayUrl).host}（本机地址）\n确认抓取？`).length - 1;
            assert.equal(asked, 2, r.stdout);
            const results = convo(r.requests[1].body).filter((m) => m.role === 'tool').map((m) => m.content);
            assert.deepEqual(results, [
                '本站的内容',
                `已取消抓取：${homeUrl}/cross 重定向到 ${awayUrl}/landing，没有跟过去`,
                '另一个站点的内容',
            ]);
            assert.deepEqual(awaySeen, ['/landing']);
        });
    });
}
