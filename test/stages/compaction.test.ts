// Day 5 的历史压缩：经真实入口、管道输入、假 OpenAI 服务验证。之后每个阶段都重跑这些测试。
// 假服务像真实 API 一样拒绝「tool_calls 没有配对的 tool 消息」的请求，所以压缩切坏工具调用组会立刻暴露。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { assertNoRejections, startFakeOpenAI, type FakeReply, type FakeServer } from '../helpers/fake-openai.js';
import { runStage, stagesFrom } from '../helpers/run-stage.js';

const HEADER = '【之前对话的摘要】';

// 发给模型的对话：Day 11 起最前面多一条每次重建的 system 提示，去掉它；摘要消息保留
const convo = (body: any): any[] =>
    body.messages.filter((m: any, i: number) => !(i === 0 && m.role === 'system' && !String(m.content).startsWith(HEADER)));
const streaming = (fake: FakeServer) => fake.requests.filter((r) => r.body.stream === true);
const summaries = (fake: FakeServer) => fake.requests.filter((r) => r.body.stream !== true);

function workdir(files: Record<string, string> = {}): string {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-compact-')));
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
    return dir;
}

/** 每个测试一个假服务：回复队列互不干扰。 */
async function withFake(replies: FakeReply[], fn: (fake: FakeServer) => Promise<void>): Promise<void> {
    const fake = await startFakeOpenAI({ replies });
    try {
        await fn(fake);
    } finally {
        await fake.close();
    }
}

const text = (t: string): FakeReply => ({ kind: 'text', text: t });
const long = (n: number) => `回答${n}：` + '内容'.repeat(60);

for (const stage of stagesFrom('day08')) {
    describe(`${stage}: 历史压缩`, () => {
        const run = (fake: FakeServer, input: string[], max: string, cwd?: string) =>
            runStage(stage, { input, cwd, env: { OPENAI_BASE_URL: fake.url, GEEKAGENT_MAX_HISTORY: max } });

        test('超过阈值自动压缩：摘要请求非流式、不带工具；之后的请求以摘要开头，保留的部分从 user 消息开始，工具调用组不被拆开', async () => {
            const cwd = workdir({ 'a.txt': 'alpha '.repeat(30), 'b.txt': 'beta' });
            await withFake([
                { kind: 'tools', calls: [{ id: 'call_ls1', name: 'ls', arguments: '{"path":"."}' }] },
                text('有 a.txt 和 b.txt。'),
                { kind: 'tools', calls: [{ id: 'call_read', name: 'read', arguments: '{"path":"a.txt"}' }] },
                text('a.txt 里都是 alpha。'),
                { kind: 'tools', calls: [{ id: 'call_ls2', name: 'ls', arguments: '{}' }] },
                text('还是两个文件。'),
                text('- 用户查看了目录：a.txt、b.txt'),   // 摘要（非流式请求拿到 JSON 补全）
                text('好的。'),
            ], async (fake) => {
                const r = await run(fake, ['看看目录', '读一下 a.txt', '再列一次', '现在怎么样'], '300', cwd);
                assert.equal(r.code, 0, r.stderr);
                assertNoRejections(fake);
                assert.equal(fake.requests.length, 8);

                // 前三轮：历史已超过 300 字符，但还没有可切的 user 边界（保留至少 6 条），不发摘要请求、也不提示
                const [summary] = summaries(fake);
                assert.equal(summaries(fake).length, 1);
                assert.equal(fake.requests.indexOf(summary), 6);
                assert.equal(summary.body.tools, undefined);
                assert.equal(summary.body.tool_choice, undefined);
                assert.equal(summary.body.stream_options, undefined);
                assert.equal(summary.body.messages.length, 2);
                assert.equal(summary.body.messages[0].role, 'system');
                assert.equal(summary.body.messages[1].role, 'user');
                // 被合并的是第一轮的全部 4 条消息（user、带 tool_calls 的 assistant、tool、回答），原样以 JSON 贴给压缩器
                const firstTurn = convo(fake.requests[2].body).slice(0, 4);
                assert.deepEqual(JSON.parse(summary.body.messages[1].content), firstTurn);
                assert.equal(firstTurn[1].tool_calls[0].id, 'call_ls1');

                const after = convo(fake.requests[7].body);
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
                for (const req of streaming(fake)) assert.deepEqual(req.body.stream_options, { include_usage: true });
                assert.match(r.stdout, /\[历史压缩：4 条旧消息已合并为 1 条摘要\]/);
                assert.doesNotMatch(r.stdout, /没有可以压缩/);
                assert.match(r.stdout, /好的。/);
            });
        });

        test('/compact 立即压缩并显示合并了几条；下一轮请求以摘要开头', async () => {
            await withFake([
                text('a1'), text('a2'), text('a3'), text('a4'), text('a5'),
                text('- 聊了五句'),
                text('a6'),
            ], async (fake) => {
                const r = await run(fake, ['q1', 'q2', 'q3', 'q4', 'q5', '/compact', 'q6'], '1000000');
                assert.equal(r.code, 0, r.stderr);
                assertNoRejections(fake);
                assert.match(r.stdout, /\[4 条旧消息已合并为 1 条摘要\]/);
                assert.equal(summaries(fake).length, 1);
                assert.equal(fake.requests.indexOf(summaries(fake)[0]), 5);
                assert.deepEqual(convo(fake.requests[6].body), [
                    { role: 'system', content: `${HEADER}\n- 聊了五句` },
                    { role: 'user', content: 'q3' }, { role: 'assistant', content: 'a3' },
                    { role: 'user', content: 'q4' }, { role: 'assistant', content: 'a4' },
                    { role: 'user', content: 'q5' }, { role: 'assistant', content: 'a5' },
                    { role: 'user', content: 'q6' },
                ]);
            });
        });

        test('/compact 没有可压缩的内容：给出提示，不发请求', async () => {
            await withFake([text('a1'), text('a2')], async (fake) => {
                const r = await run(fake, ['/compact', 'q1', '/compact', 'q2'], '1000000');
                assert.equal(r.code, 0, r.stderr);
                assert.equal((r.stdout.match(/\[没有可以压缩的旧消息\]/g) ?? []).length, 2);
                assert.equal(fake.requests.length, 2);
                assert.equal(summaries(fake).length, 0);
                assert.equal(convo(fake.requests[1].body).length, 3);
            });
        });

        test('摘要请求 HTTP 500（重试两次仍失败）：保留原历史，这一轮照常完成', async () => {
            const boom: FakeReply = { kind: 'http', status: 500, body: '{"error":{"message":"summary backend exploded","type":"server_error"}}' };
            await withFake([
                text(long(1)), text(long(2)), text(long(3)), text(long(4)),
                boom, boom, boom,
                text('第五轮照常回答'),
            ], async (fake) => {
                const r = await run(fake, ['q1', 'q2', 'q3', 'q4', 'q5'], '300');
                assert.equal(r.code, 0, r.stderr);
                assertNoRejections(fake);
                assert.equal(summaries(fake).length, 3, '摘要请求应该重试两次');
                assert.equal(((r.stdout + r.stderr).match(/秒后重试（HTTP 500）/g) ?? []).length, 2);
                assert.match(r.stdout, /\[历史压缩：历史压缩失败：保留原样\]/);
                assert.match(r.stdout, /第五轮照常回答/);
                assert.doesNotMatch(r.stderr, /请求失败/);
                const last = convo(fake.requests.at(-1)!.body);
                assert.equal(last.length, 9);
                assert.ok(last.every((m) => m.role !== 'system'));
                assert.deepEqual(last[0], { role: 'user', content: 'q1' });
            });
        });

        for (const [name, reply, message] of [
            ['HTTP 400', { kind: 'http', status: 400, body: '{"error":{"message":"bad summary request","type":"invalid_request_error"}}' }, '历史压缩失败：保留原样'],
            ['空摘要', text(''), '模型没有给出摘要，保留原样'],
        ] as [string, FakeReply, string][]) {
            test(`摘要请求得到${name}：不重试，保留原历史，这一轮照常完成`, async () => {
                await withFake([text(long(1)), text(long(2)), text(long(3)), text(long(4)), reply, text('照常')], async (fake) => {
                    const r = await run(fake, ['q1', 'q2', 'q3', 'q4', 'q5'], '300');
                    assert.equal(r.code, 0, r.stderr);
                    assertNoRejections(fake);
                    assert.equal(summaries(fake).length, 1);
                    assert.ok(r.stdout.includes(`[历史压缩：${message}]`), r.stdout);
                    assert.match(r.stdout, /照常/);
                    assert.equal(convo(fake.requests.at(-1)!.body).length, 9);
                });
            });
        }
    });
}
