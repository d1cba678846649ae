// 行模式在真实终端里（stdin 是 TTY、stdout 接管道）：Ctrl+C 取消一轮时，正在等的 [y/N] 被答成「否」，
// 下一行输入照常作为新的一轮发出，而不是被那个确认吞掉；被拒绝的命令也没有执行。
// 需要 tmux 提供真实终端；没有 tmux 时跳过。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { userTexts } from '../helpers/agent.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { noTmux, Terminal } from '../helpers/terminal.ts';

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 终端里 Ctrl+C 取消正在等确认的一轮`, { skip: noTmux }, () => {
        test('答「否」、回滚，下一行是新的一轮', async () => {
            const fake = await startFakeOpenAI({
                replies: [tools(call('c1', 'run_shell', { command: 'touch SHOULD-NOT-EXIST' })), text('reply-after-cancel')],
            });
            // stdout 接到 cat：不是全屏界面，而是行模式；stdin 仍是终端，Ctrl+C 由 readline 交给程序
            const term = new Terminal(stage, { cols: 100, rows: 40, lineMode: true, env: { OPENAI_BASE_URL: fake.url } });
            try {
                await term.shows('GeekAgent');
                term.enter('run it');
                await term.shows('[y/N]');
                term.press('C-c');
                await term.shows('已中断');
                term.enter('hello again');
                await term.shows('reply-after-cancel');
                term.press('C-d');
                await term.exited();

                assert.equal(fs.existsSync(path.join(term.cwd, 'SHOULD-NOT-EXIST')), false, '被取消的命令不该执行');
                assert.equal(fake.requests.length, 2);
                assert.deepEqual(userTexts(fake.requests[1].body), ['hello again'], '被取消的一轮没有回滚，或者下一行被确认吞掉了');
                assertNoRejections(fake);
            } finally {
                term.close();
                await fake.close();
            }
        });
    });
}
