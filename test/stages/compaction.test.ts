// Day 5 的历史压缩：经真实入口、管道输入、假 OpenAI 服务验证。只在加固版上跑（课由检查和 lessons.test.ts 测）。
// 假服务像真实 API 一样拒绝「tool_calls 没有配对的 tool 消息」的请求，所以压缩切坏工具调用组会立刻暴露。
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, text, tools, type FakeReply } from '../../scripts/fake-model/replies.ts';
import type { RecordedRequest } from '../../scripts/fake-model/server.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

const HEADER = '【之前对话的摘要】';

// 发给模型的对话：Day 11 起最前面多一条每次重建的 system 提示，去掉它；摘要消息保留
const convo = (body: any): any[] =>
    body.messages.filter((m: any, i: number) => !(i === 0 && m.role === 'system' && !String(m.content).startsWith(HEADER)));
const streaming = (requests: RecordedRequest[]) => requests.filter((r) => r.body.stream === true);
const summaries = (requests: RecordedRequest[]) => requests.filter((r) => r.body.stream !== true);

const long = (n: number) => `回答${n}：` + '内容'.repeat(60);

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 历史压缩`, () => {
        test('超过阈值自动压缩：摘要请求非流式、不带工具；之后的请求以摘要开头，保留的部分从 user 消息开始，工具调用组不被拆开', async () => {
            const cwd = workdir({ 'a.txt': 'alpha '.repeat(30), 'b.txt': 'beta' });
            const r = await runAgent(stage, { cwd, input: ['看看目录', '读一下 a.txt', '再列一次', '现在怎么样'], env: { GEEKAGENT_MAX_HISTORY: '300' }, replies: [
                tools(call('call_ls1', 'ls', { path: '.' })),
                text('有 a.txt 和 b.txt。'),
                tools(call('call_read', 'read', { path: 'a.txt' })),
                text('a.txt 里都是 alpha。'),
                tools(call('call_ls2', 'ls')),
                text('还是两个文件。'),
                text('- 用户查看了目录：a.txt、b.txt'),   // 摘要（非流式请求拿到 JSON 补全）
                text('好的。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 8);

            // 前三轮：历史已超过 300 字符，但还没有可切的 user 边界（保留至少 6 条），不发摘要请求、也不提示
            const [summary] = summaries(r.requests);
            assert.equal(summaries(r.requests).length, 1);
            assert.equal(r.requests.indexOf(summary), 6);
            assert.equal(summary.body.tools, undefined);
            assert.equal(summary.body.tool_choice, undefined);
            assert.equal(summary.body.stream_options, undefined);
            assert.equal(summary.body.messages.length, 2);
            assert.equal(summary.body.messages[0].role, 'system');
            assert.equal(summary.body.messages[1].role, 'user');
            // 被合并的是第一轮的全部 4 条消息（user、带 tool_calls 的 assistant、tool、回答），原样以 JSON 贴给压缩器
            const firstTurn = convo(r.requests[2].body).slice(0, 4);
            assert.deepEqual(JSON.parse(summary.body.messages[1].content), firstTurn);
            assert.equal(firstTurn[1].tool_calls[0].id, 'call_ls1');

            const after = convo(r.requests[7].body);
            assert.equal(after[0].role, 'system');
            assert.equal(after[0].content.split('\n')[0], HEADER);
            assert.equal(after[0].content, `${HEADER}\n- 用户查看了目录：a.txt、b.txt`);
            assert.deepEqual(after[1], { role: 'user', content: '读一下 a.txt' });
            assert.equal(after[2].tool_calls[0].id, 'call_read');
            assert.equal(after[3].tool_call_id, 'call_read');
            assert.deepEqual(after.at(-1), { role: 'user', content: '现在怎么样' });
            assert.equal(after.length, 1 + 9);
            assert.ok(!JSON.stringify(after).includes('call_ls1'), '第一轮的工具调用应该已经被摘要取代');

            // Day 7：流式请求都带 stream_options.include_usage
            for (const req of streaming(r.requests)) assert.deepEqual(req.body.stream_options, { include_usage: true });
            assert.match(r.stdout, /\[历史压缩：4 条旧消息已合并为 1 条摘要\]/);
            assert.doesNotMatch(r.stdout, /没有可以压缩/);
            assert.match(r.stdout, /好的。/);
        });

        test('/compact 立即压缩并显示合并了几条；下一轮请求以摘要开头', async () => {
            const r = await runAgent(stage, { input: ['q1', 'q2', 'q3', 'q4', 'q5', '/compact', 'q6'], replies: [
                text('a1'), text('a2'), text('a3'), text('a4'), text('a5'),
                text('- 聊了五句'),
                text('a6'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /\[4 条旧消息已合并为 1 条摘要\]/);
            assert.equal(summaries(r.requests).length, 1);
            assert.equal(r.requests.indexOf(summaries(r.requests)[0]), 5);
            assert.deepEqual(convo(r.requests[6].body), [
                { role: 'system', content: `${HEADER}\n- 聊了五句` },
                { role: 'user', content: 'q3' }, { role: 'assistant', content: 'a3' },
                { role: 'user', content: 'q4' }, { role: 'assistant', content: 'a4' },
                { role: 'user', content: 'q5' }, { role: 'assistant', content: 'a5' },
                { role: 'user', content: 'q6' },
            ]);
        });

        test('/compact 没有可压缩的内容：给出提示，不发请求', async () => {
            const r = await runAgent(stage, { input: ['/compact', 'q1', '/compact', 'q2'], replies: [text('a1'), text('a2')] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal((r.stdout.match(/\[没有可以压缩的旧消息\]/g) ?? []).length, 2);
            assert.equal(r.requests.length, 2);
            assert.equal(summaries(r.requests).length, 0);
            assert.equal(convo(r.requests[1].body).length, 3);
        });

        test('摘要请求 HTTP 500（重试两次仍失败）：保留原历史，这一轮照常完成', async () => {
            const boom: FakeReply = { kind: 'http', status: 500, body: '{"error":{"message":"summary backend exploded","type":"server_error"}}' };
            const r = await runAgent(stage, { input: ['q1', 'q2', 'q3', 'q4', 'q5'], env: { GEEKAGENT_MAX_HISTORY: '300' }, replies: [
                text(long(1)), text(long(2)), text(long(3)), text(long(4)),
                boom, boom, boom,
                text('第五轮照常回答'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(summaries(r.requests).length, 3, '摘要请求应该重试两次');
            assert.equal(((r.stdout + r.stderr).match(/秒后重试（HTTP 500）/g) ?? []).length, 2);
            assert.match(r.stdout, /\[历史压缩：历史压缩失败：保留原样\]/);
            assert.match(r.stdout, /第五轮照常回答/);
            assert.doesNotMatch(r.stderr, /请求失败/);
            const last = convo(r.requests.at(-1)!.body);
            assert.equal(last.length, 9);
            assert.ok(last.every((m) => m.role !== 'system'));
            assert.deepEqual(last[0], { role: 'user', content: 'q1' });
        });

        for (const [name, reply, message] of [
            ['HTTP 400', { kind: 'http', status: 400, body: '{"error":{"message":"bad summary request","type":"invalid_request_error"}}' }, '历史压缩失败：保留原样'],
            ['空摘要', text(''), '模型没有给出摘要，保留原样'],
        ] as [string, FakeReply, string][]) {
            test(`摘要请求得到${name}：不重试，保留原历史，这一轮照常完成`, async () => {
                const r = await runAgent(stage, { input: ['q1', 'q2', 'q3', 'q4', 'q5'], env: { GEEKAGENT_MAX_HISTORY: '300' }, replies: [text(long(1)), text(long(2)), text(long(3)), text(long(4)), reply, text('照常')] });
                assert.equal(r.code, 0, r.stderr);
                assert.equal(summaries(r.requests).length, 1);
                assert.ok(r.stdout.includes(`[历史压缩：${message}]`), r.stdout);
                assert.match(r.stdout, /照常/);
                assert.equal(convo(r.requests.at(-1)!.body).length, 9);
            });
        }
    });
}
