// 真实终端里（tmux）：只有 [y/N] 出现之后打的一行能回答它。问题显示之后 Agent 先等一会儿（input.ts 的 ANSWER_SETTLE_MS，
// 500 ms）才显示 [y/N]；这之前到的字（提问前打好、终端晚一点才送到的）照常排队，显示成「问题出现前打的，已排队」，
// 之后当作一句话处理。一个快得不像人在回答的 y 绝不会批准命令。先后都靠 SIGSTOP 冻住 Agent 来定，不靠谁跑得快：
// - 冻着时打 y、放行要执行命令的回复：两样同时摆在醒来的 Agent 面前；
// - 问题写出之后、[y/N] 写出之前冻住它再打 y。机器太忙、冻住时 [y/N] 已经出来了，这一次就测不到（跳过）；
//   只有放行回复后不到 450 ms 就有了 [y/N] 才算失败——那说明 Agent 根本没有等够，多忙的机器也不会让它早写。
// 行模式和全屏界面都测。没有 tmux 时跳过。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { toolMessages, userTexts } from '../helpers/agent.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { noTmux, Terminal } from '../helpers/terminal.ts';
import { DEADLINE_MS } from '../../scripts/check/spawn.ts';
import { sleep, waitUntil } from '../helpers/wait.ts';
import { workdir } from '../helpers/workdir.ts';

const COMMAND = 'echo ran > ran.txt';
const QUEUED_Y = '（问题出现前打的，已排队，不算回答：y）';
const ASKED = `即将执行命令：${COMMAND}`;

// 紧盯着等（每 5 ms 看一次，不像 waitUntil 越等越疏）：看到问题越早，越能赶在 [y/N] 出现之前冻住 Agent
async function watch(check: () => boolean, show: () => string): Promise<void> {
    const deadline = Date.now() + DEADLINE_MS;
    while (!check()) {
        if (Date.now() > deadline) assert.fail(`等待超时：问题出现\n${show()}`);
        await sleep(5);
    }
}

// 让出两轮事件循环：假服务器放行之后，回复的其余部分这时已经写进了套接字
const flushed = async () => {
    for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('终端里：回答只认 [y/N] 出现之后打的一行', { skip: noTmux }, () => {
    for (const stage of HARDENED_ONLY) {
        for (const fullScreen of [false, true]) {
            const mode = fullScreen ? '全屏界面' : '行模式';
            test(`${stage} ${mode}：Agent 冻住时打的 y 和要执行命令的回复同时到，y 排队、显示出来，之后空回车就是拒绝`, async () => {
                let release = () => {};
                const hold = new Promise<void>((resolve) => (release = resolve));
                const fake = await startFakeOpenAI({
                    replies: [
                        { kind: 'tools', text: '先说一句，', hold, calls: [call('c1', 'run_shell', { command: COMMAND })] },
                        text('命令已取消'),
                        text('收到排队的 y'),
                    ],
                });
                // stdout 接 cat 是行模式，都接终端就是全屏界面
                const term = new Terminal(stage, { cols: 140, rows: 40, lineMode: !fullScreen, env: { OPENAI_BASE_URL: fake.url } });
                try {
                    await term.shows('GeekAgent');
                    term.enter('开始');
                    await term.shows('先说一句，');
                    const thaw = await term.freeze();
                    term.enter('y');   // 冻着的 Agent 读不到：按键在终端的输入缓冲里等着
                    release();         // 要执行命令的回复也在套接字里等着
                    await flushed();
                    thaw();
                    await term.shows(QUEUED_Y);
                    assert.ok(!fs.existsSync(path.join(term.cwd, 'ran.txt')), '提前打的 y 批准了命令');
                    await term.answer('');   // [y/N] 出现之后只按回车：默认的「否」
                    await term.shows('收到排队的 y');
                    assert.ok(!fs.existsSync(path.join(term.cwd, 'ran.txt')), '命令不该执行');
                    assert.match(toolMessages(fake.requests[1].body)[0].content, /取消|拒绝/);
                    assert.deepEqual(userTexts(fake.requests[2].body).slice(-2), ['开始', 'y'], '排队的 y 应当作为新的一轮发出');
                    term.press('C-d');
                    await term.exited();
                    assertNoRejections(fake);
                } finally {
                    term.close();
                    await fake.close();
                }
            });
        }

        test(`${stage} 行模式：问题出现几毫秒后打的 y 只排队；[y/N] 出现之后打的 y 才批准`, async (t) => {
            let release = () => {};
            const hold = new Promise<void>((resolve) => (release = resolve));
            const fake = await startFakeOpenAI({
                replies: [
                    { kind: 'tools', text: '先说一句，', hold, calls: [call('c1', 'run_shell', { command: COMMAND })] },
                    text('命令执行完了'),
                    text('收到排队的 y'),
                ],
            });
            // stdout 写进文件：写入是同步的，冻住 Agent 时，文件里就是它写出的全部（屏幕可能还没画出来）
            const cwd = workdir();
            const outFile = path.join(cwd, 'out.txt');
            const term = new Terminal(stage, { cwd, outFile, env: { OPENAI_BASE_URL: fake.url } });
            const written = () => (fs.existsSync(outFile) ? fs.readFileSync(outFile, 'utf8') : '');
            try {
                await waitUntil('横幅', () => written().includes('GeekAgent'), written);
                term.enter('开始');
                await waitUntil('回复开头', () => written().includes('先说一句，'), written);
                const pid = term.agentPid();
                const releasedAt = performance.now();   // 问题最早也要在这之后才写出来：回复的其余部分这时才发出
                release();
                await watch(() => written().includes(ASKED), written);
                const thaw = await term.freeze(pid);
                const out = written();
                const elapsed = performance.now() - releasedAt;
                if (out.includes('[y/N]')) {
                    // 问题显示之后不到 ANSWER_SETTLE_MS（500 ms）[y/N] 就出来了：等的那段时间没了或太短。留 50 ms 给计时的误差
                    assert.ok(elapsed >= 450, `放行回复后 ${Math.round(elapsed)} ms 就有了 [y/N]，问题显示后没有等够：\n${out}`);
                    thaw();   // 机器太忙：测试看到问题、冻住 Agent 时，那段时间已经过去了，这一次测不到
                    t.skip(`机器太忙：${Math.round(elapsed)} ms 才冻住 Agent，[y/N] 已经出来了`);
                    return;
                }
                term.enter('y');   // 问题已经写出、[y/N] 还没有：这个 y 是在那段时间里到的
                thaw();
                await waitUntil('y 排队', () => written().includes(QUEUED_Y), written);
                assert.ok(!fs.existsSync(path.join(cwd, 'ran.txt')), '问题出现几毫秒后打的 y 批准了命令');
                await term.answer('y');   // [y/N] 出现之后打的：这才是回答
                await waitUntil('排队的 y 的回复', () => written().includes('收到排队的 y'), written);
                const all = written();
                assert.ok(all.indexOf(ASKED) < all.indexOf(QUEUED_Y) && all.indexOf(QUEUED_Y) < all.indexOf('[y/N]'), `排队的说明应当在问题和 [y/N] 之间：\n${all}`);
                assert.equal(fs.readFileSync(path.join(cwd, 'ran.txt'), 'utf8'), 'ran\n');
                assert.match(toolMessages(fake.requests[1].body)[0].content, /无输出/);
                assert.deepEqual(userTexts(fake.requests[2].body).slice(-2), ['开始', 'y']);
                term.press('C-d');
                await term.exited();
                assertNoRejections(fake);
            } finally {
                term.close();
                await fake.close();
            }
        });
    }
});
