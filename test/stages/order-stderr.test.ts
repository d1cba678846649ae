// agent 2>&1 | 读得慢的一方：stdout 和 stderr 是同一个管道，读的人跟不上、管道写满时，两路输出仍按发生的顺序。
// Node 给 stdout、stderr 各开一个写队列；管道满了，先写的 stdout 在队列里等，后写的 stderr 一有空位就先进去——
// 错误就落在更早的回复中间、bye 前后乱掉。测试让读的一方先不读（管道写满），等 Agent 把要看的都写完了再读。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { text } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { HARDENED_ONLY, REPO_ROOT, startStage } from '../helpers/run-stage.ts';
import { waitUntil } from '../helpers/wait.ts';
import { workdir } from '../helpers/workdir.ts';

// 远大于管道（64 KB）加上读的一方的缓冲：后面的行写出时，回复的大半还排在 Agent 的写队列里
const BIG = `${'A'.repeat(300_000)}END-OF-BIG`;
const FAILURE = { kind: 'http' as const, status: 400, body: JSON.stringify({ error: { message: 'order-test-error' } }) };

/** needles 在 output 里第一次出现的位置依次递增（每一个都要出现）。 */
function assertInOrder(output: string, needles: string[]): void {
    const at = needles.map((n) => output.indexOf(n));
    for (const [i, n] of needles.entries()) assert.ok(at[i] >= 0, `输出里没有「${n}」`);
    for (let i = 1; i < needles.length; i++) {
        const around = output.slice(Math.max(0, at[i] - 80), at[i] + 80).replace(/A{20,}/g, (a) => `A×${a.length}`);
        assert.ok(at[i - 1] < at[i], `「${needles[i]}」跑到了「${needles[i - 1]}」前面：…${around}…`);
    }
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: agent 2>&1 | 读得慢的一方：输出按发生的顺序`, () => {
        test('第二轮的报错（stderr）排在第一轮的长回复之后、第三轮之前；bye 在最后', async () => {
            const fake = await startFakeOpenAI({ replies: [{ kind: 'text', text: BIG, chunkSize: 10_000 }, FAILURE, text('third-reply')] });
            try {
                const run = startStage(stage, {
                    input: ['big', 'fail', 'third'],
                    stderrToStdout: true,
                    env: { OPENAI_BASE_URL: fake.url, GEEKAGENT_MAX_HISTORY: '1000000' },
                });
                run.child.stdout!.pause();          // 读的一方先不读：管道写满，Agent 的输出排在它自己的写队列里
                await fake.waitForRequest(3);       // 第三轮已经开始：第二轮的报错早就写出了
                run.child.stdout!.resume();
                const r = await run.done;
                assert.equal(r.code, 0, r.stdout.slice(-2000));
                assert.equal(r.stderr, '', 'stderr 应该和 stdout 是同一个管道');
                assertInOrder(r.stdout, ['You › big', 'END-OF-BIG', 'You › fail', 'order-test-error', 'You › third', 'third-reply', 'bye']);
                assertNoRejections(fake);
            } finally {
                await fake.close();
            }
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: agent 2>&1 | 读得慢的一方：退出时的存档警告在 bye 之前`, () => {
        test('sessions.json 坏了：另存的提示（console.error）排在回复之后、bye 之前', async () => {
            const fake = await startFakeOpenAI({ replies: [{ kind: 'text', text: BIG, chunkSize: 10_000 }] });
            try {
                const cwd = workdir({ '.geekagent/sessions.json': '{"broken' });
                const run = startStage(stage, {
                    cwd,
                    input: ['big'],
                    stderrToStdout: true,
                    env: { OPENAI_BASE_URL: fake.url, GEEKAGENT_MAX_HISTORY: '1000000' },
                });
                run.child.stdout!.pause();
                // 另存的文件出现了：退出流程已经写过「无法读取」，正在写另存的提示和 bye
                const rescued = () => fs.readdirSync(path.join(cwd, '.geekagent')).some((f) => /^sessions-.+\.json$/.test(f));
                await waitUntil('对话另存到新文件', rescued);
                run.child.stdout!.resume();
                const r = await run.done;
                assert.equal(r.code, 0, r.stdout.slice(-2000));
                assertInOrder(r.stdout, ['You › big', 'END-OF-BIG', '另存到', 'bye']);
                assertNoRejections(fake);
            } finally {
                await fake.close();
            }
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: agent 2>&1 | 读得慢的一方：MCP 服务器的 stderr 回显按发生的顺序`, () => {
        test('重连时服务器的 [mcp:demo] 行排在长回复和 You › /mcp reconnect 之后、「已重新连接」之前', async () => {
            const fake = await startFakeOpenAI({ replies: [{ kind: 'text', text: BIG, chunkSize: 10_000 }, text('after-reply')] });
            try {
                const demo = { command: 'node', args: [path.join(REPO_ROOT, stage, 'demo-server.mjs')] };
                const cwd = workdir({ '.geekagent/mcp.json': JSON.stringify({ mcpServers: { demo } }) });
                const run = startStage(stage, {
                    cwd,
                    input: ['y', 'big', '/mcp reconnect demo', 'after'],   // 第一行回答是否信任这个文件夹（要启动它的 MCP 服务器）
                    stderrToStdout: true,
                    env: { OPENAI_BASE_URL: fake.url, GEEKAGENT_MAX_HISTORY: '1000000' },
                });
                run.child.stdout!.pause();
                await fake.waitForRequest(2);       // 重连已经做完，它的回显早就写出了
                run.child.stdout!.resume();
                const r = await run.done;
                assert.equal(r.code, 0, r.stdout.slice(-2000));
                const echo = '[mcp:demo] geekagent-demo started';
                const from = r.stdout.indexOf('You › /mcp reconnect demo');
                assert.ok(from >= 0 && r.stdout.indexOf(echo, from) >= 0, `重连之后没有服务器的回显：${r.stdout.slice(-2000)}`);
                assertInOrder(r.stdout.slice(r.stdout.indexOf('You › big')), ['END-OF-BIG', 'You › /mcp reconnect demo']);
                assertInOrder(r.stdout.slice(from), [echo, 'demo 已重新连接', 'You › after', 'after-reply', 'bye']);
                assertNoRejections(fake);
            } finally {
                await fake.close();
            }
        });
    });
}
