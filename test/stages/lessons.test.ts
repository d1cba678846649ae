// 课的章节许下的几件事，每一课（从引入它的那天起）和加固版都要做到：多轮对话带着历史、工具结果回到模型、
// 执行命令前问 [y/N]、管道里问题的下一行就是回答、/exit 退出。只看模型收到的请求和磁盘，不看提示文字怎么写：
// 课一课一课换进来时，这些测试照样成立。录制的流经真实入口重放在 sse-fixtures.test.ts。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent, toolMessages, userTexts } from '../helpers/agent.ts';
import { stagesFrom } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

// 发给模型的对话（后面的课在请求最前面加一条每次重建的 system 消息，这里去掉）
const convo = (body: any): any[] => body.messages.filter((m: any) => m.role !== 'system');

for (const stage of stagesFrom('day01')) {
    describe(`${stage}: 第 1 天的承诺`, { concurrency: true }, () => {
        test('多轮对话：第二问的请求依次带着第一问、第一个回答、第二问；两个回答都显示出来', async () => {
            const r = await runAgent(stage, { input: ['第一问', '第二问'], replies: [text('ANSWER-one'), text('ANSWER-two')] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 2);
            assert.deepEqual(convo(r.requests[1].body).map((m) => [m.role, m.content]),
                [['user', '第一问'], ['assistant', 'ANSWER-one'], ['user', '第二问']]);
            assert.match(r.stdout, /ANSWER-one[^]*ANSWER-two/);
        });

        test('/exit 退出，退出码 0，之后的行不再发给模型；输入结束也退出', async () => {
            const r = await runAgent(stage, { input: ['第一问', '/exit', '不该发出'], replies: [text('ANSWER-one')] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 1);
            assert.deepEqual(userTexts(r.requests[0].body), ['第一问']);
            const eof = await runAgent(stage, { input: ['第一问'], replies: [text('ANSWER-one')] });
            assert.equal(eof.code, 0, eof.stderr);
            assert.equal(eof.requests.length, 1);
        });
    });
}

for (const stage of stagesFrom('day04')) {
    describe(`${stage}: 第 2–4 天的承诺`, { concurrency: true }, () => {
        test('工具循环：read 的结果作为 tool 消息回到模型，模型的下一个回答显示出来', async () => {
            const cwd = workdir({ 'a.txt': 'MARKER-in-file\n' });
            const r = await runAgent(stage, { cwd, input: ['读 a.txt'], replies: [tools(call('c1', 'read', { path: 'a.txt' })), text('ANSWER-after-tool')] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 2);
            const [result] = toolMessages(r.requests[1].body);
            assert.equal(result.tool_call_id, 'c1');
            assert.match(result.content, /MARKER-in-file/);
            assert.match(r.stdout, /ANSWER-after-tool/);
        });

        test('run_shell 先问 [y/N]：管道里下一行就是回答，y 才执行，n 不执行；回答不算一句话', async () => {
            const cwd = workdir();
            const r = await runAgent(stage, {
                cwd,
                input: ['跑一下', 'y', '再跑', 'n', '结束'],
                replies: [
                    tools(call('c1', 'run_shell', { command: 'touch yes.txt' })), text('跑完了'),
                    tools(call('c2', 'run_shell', { command: 'touch no.txt' })), text('没跑'),
                    text('好'),
                ],
            });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(fs.existsSync(path.join(cwd, 'yes.txt')), '答 y 应当执行');
            assert.ok(!fs.existsSync(path.join(cwd, 'no.txt')), '答 n 不该执行');
            assert.equal(r.requests.length, 5);
            assert.deepEqual(userTexts(r.requests[4].body), ['跑一下', '再跑', '结束']);
            assert.deepEqual(toolMessages(r.requests[4].body).map((m) => m.tool_call_id), ['c1', 'c2']);
        });
    });
}
