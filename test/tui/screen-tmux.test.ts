// 真实终端里（tmux）：伪造的确认提示露出真实命令，提前打的 y 不会回答之后才出现的 [y/N]。
// 回答一律经 Terminal.answer()：等 [y/N] 出现再打（Agent 显示问题之后要等一会儿才显示它，之前到的字只排队）。
// 行模式（stdout 接 cat）和全屏界面都测。
// 管道输入的情形在 test/stages/screen.test.ts。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI, type FakeServer } from '../../scripts/fake-model/server.ts';
import { toolMessages, userTexts } from '../helpers/agent.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { noTmux, Terminal } from '../helpers/terminal.ts';

const FORGED = 'echo MALICIOUS > pwned.txt #\r\x1b[2K即将执行命令：ls';
const FORGED_SHOWN = '即将执行命令：echo MALICIOUS > pwned.txt #\\r\\x1b[2K即将执行命令：ls';
const SLOW = '这段回复还在慢慢输出，'.repeat(2);

/**
 * 模型先说一段话，停住（hold），等测试放行才要求执行伪造的命令；之后是取消后的回复，再后面是提前打的行作为新一轮得到的回复。
 * 停住的那段时间里测试打字：打的字一定先于 [y/N] 到达，不靠「回复流得够慢」。
 */
async function scenario(extra = ''): Promise<{ fake: FakeServer; release: () => void }> {
    let release = () => {};
    const hold = new Promise<void>((resolve) => (release = resolve));
    const fake = await startFakeOpenAI({
        replies: [
            { kind: 'tools', text: extra + SLOW, hold, calls: [call('c1', 'run_shell', { command: FORGED })] },
            text('命令已取消'),
            text('收到提前打的那行'),
            text('收到提前打了一半的那行'),
        ],
    });
    return { fake, release };
}

/** 提问出现时：命令没有执行，也没有发出下一个请求。 */
function assertNotApproved(term: Terminal, fake: FakeServer): void {
    assert.ok(!fs.existsSync(path.join(term.cwd, 'pwned.txt')), '提前打的 y 回答了之后才出现的确认');
    assert.equal(fake.requests.length, 1);
}

/** 结束时：命令的结果是「取消」，提前打的 y 作为新一轮发了出去。 */
function assertDeclinedThenQueued(term: Terminal, fake: FakeServer): void {
    assert.match(toolMessages(fake.requests[1].body)[0].content, /取消|拒绝/);
    assert.deepEqual(userTexts(fake.requests[2].body).slice(-2), ['开始', 'y']);
    assert.ok(!fs.existsSync(path.join(term.cwd, 'pwned.txt')));
}

const QUEUED_Y = '（问题出现前打的，已排队，不算回答：y）';

describe('终端里：伪造的确认提示、提前打的 y', { skip: noTmux }, () => {
    for (const stage of HARDENED_ONLY) {
        test(`${stage} 行模式：提示里看得到真实命令；提前打的 y 留给下一轮，提问前打了一半的 y 回车后也只排队`, async () => {
            const { fake, release } = await scenario();
            const term = new Terminal(stage, { cols: 140, rows: 40, lineMode: true, env: { OPENAI_BASE_URL: fake.url } });
            try {
                await term.shows('GeekAgent');
                term.enter('开始');
                await term.shows('这段回复还在');
                term.enter('y');
                term.type('y');   // 又打了一个 y，但没按回车
                release();
                const shown = await term.shows('[y/N]');
                assert.ok(shown.includes(FORGED_SHOWN), shown);
                assert.equal(term.count(QUEUED_Y), 1, '提问前回车的 y 应当显示成已排队');
                assertNotApproved(term, fake);
                term.press('Enter');   // 这一行是提问前开始打的：回车后也只排队，[y/N] 再出现一次
                await term.until('第二个 y 排队', () => term.count(QUEUED_Y) === 2);
                assertNotApproved(term, fake);
                await term.answer('');   // [y/N] 出现之后只按回车：默认的「否」
                await term.shows('收到提前打了一半的那行');
                assertDeclinedThenQueued(term, fake);
                assert.deepEqual(userTexts(fake.requests[3].body).slice(-3), ['开始', 'y', 'y']);
                term.press('C-d');
                await term.exited();
                assertNoRejections(fake);
            } finally {
                term.close();
                await fake.close();
            }
        });
    }

    for (const stage of HARDENED_ONLY) {
        test(`${stage} 全屏界面：颜色序列和伪造的提示显示成转义；提前打的 y 和没提交的字都不算回答`, async () => {
            const { fake, release } = await scenario('\x1b[8m隐藏\x1b[0m');
            const term = new Terminal(stage, { cols: 140, rows: 40, env: { OPENAI_BASE_URL: fake.url } });
            const inputRow = (s: string[]) => s.at(-1) ?? '';
            try {
                await term.until('启动', (s) => s.join('\n').includes('GeekAgent') && inputRow(s).startsWith('You ›'));
                term.enter('开始');
                await term.shows('\\x1b[8m隐藏\\x1b[0m这段回复还在');
                term.enter('y');
                await term.shows('1 条排队');
                term.type('y');   // 打了但没按回车
                await term.until('没提交的 y 出现在输入行', (s) => /^You › y *$/.test(inputRow(s)));
                release();
                const shown = await term.shows('[y/N]');
                assert.ok(shown.includes(FORGED_SHOWN), shown);
                assert.match(shown, /^\[y\/N\] *$/m, '提问之前没提交的字不该留在 [y/N] 后面');
                assert.ok(shown.includes(QUEUED_Y), `提问前提交的 y 应当显示成已排队：\n${shown}`);
                assertNotApproved(term, fake);
                await term.answer('n');
                const done = await term.shows('收到提前打的那行');
                assert.match(done, /^You › y *$/m, '答完之后，没提交的字回到输入行');
                assertDeclinedThenQueued(term, fake);
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
