// 行模式在真实终端里（stdin 是 TTY、stdout 接管道）：回复还在流的时候打的一行不丢，排进队里，这一轮结束后作为下一轮发出。
// （readline 随打随回显，这一行会出现在正在流出的回复里：那是行模式的限制，见 plain.ts。）需要 tmux 提供真实终端；没有 tmux 时跳过。
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { text } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { userTexts } from '../helpers/agent.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { noTmux, Terminal } from '../helpers/terminal.ts';

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 终端里回复进行中打的一行，这一轮结束后作为下一轮发出`, { skip: noTmux }, () => {
        test('那一行不丢、只发一次：第一轮的回复完整，之后才是它的回复', async () => {
            let release = () => {};
            const hold = new Promise<void>((resolve) => (release = resolve));
            // 第一轮的正文发完就停住：测试在「回复还在流」时打字，打完才让它结束
            const fake = await startFakeOpenAI({ replies: [{ kind: 'text', text: 'part-one', hold }, text('reply-two')] });
            const term = new Terminal(stage, { cols: 100, rows: 40, lineMode: true, env: { OPENAI_BASE_URL: fake.url } });
            try {
                await term.shows('You › ');
                term.enter('first');
                await term.shows('part-one');
                term.enter('typed-ahead');   // send-keys 返回时字已经在终端的输入缓冲里，早于下面让回复结束
                release();
                await term.shows('reply-two');
                term.press('C-d');
                await term.exited();

                const screen = term.text(true);
                assert.ok(screen.includes('part-one') && screen.indexOf('part-one') < screen.indexOf('reply-two'), screen);
                assert.equal(fake.requests.length, 2);
                assert.deepEqual(userTexts(fake.requests[1].body).slice(-1), ['typed-ahead']);
                assertNoRejections(fake);
            } finally {
                term.close();
                await fake.close();
            }
        });
    });
}
