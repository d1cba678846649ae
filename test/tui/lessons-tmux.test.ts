// 课的第 7 天：全屏界面在真实终端里（tmux）做到了章节「先看效果」「动手」说的事。从有第 7 天的那一课起每课都测（day08、day11、
// day15；加固版的全屏界面另见 tmux.test.ts）。只看屏幕上看得见的、磁盘上的文件和假模型收到的请求；所有等待都是等屏幕上出现
// 某样东西。每课五个终端同时跑，各测一种退出方式：/exit、回复进行中按 Ctrl+D、kill（SIGTERM）、关掉窗口（SIGHUP）、
// 空闲时连按两次 Ctrl+C。
// 布局本身（一帧怎么算）由 test/units/day08-screen.test.ts 单测；这里看的是终端真正画出来的样子。没有 tmux 时跳过。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { SETTLE_MS } from '../../day08/input.ts';
import { call, text, tools, type Usage } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI, type FakeServer } from '../../scripts/fake-model/server.ts';
import { LESSONS, STAGE_DAYS } from '../../scripts/days.ts';
import { toolMessages, userTexts } from '../helpers/agent.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { assertEchoes, assertRestored, cells, FullScreen } from '../helpers/fullscreen.ts';
import { stagesFrom } from '../helpers/run-stage.ts';
import { noTmux } from '../helpers/terminal.ts';
import { sleep, waitUntil } from '../helpers/wait.ts';

// 有第 7 天的课：第 7 天所在的那一课和它之后的每一课
const FIRST = LESSONS.find((stage) => STAGE_DAYS[stage].includes(7))!;
const STAGES_WITH_UI = stagesFrom(FIRST).filter((stage) => LESSONS.includes(stage));

const usage = (total: number): Usage => ({ prompt_tokens: total - 10, completion_tokens: 10, total_tokens: total });
// 全是宽字符（汉字和全角标点）：每一行折到正好占满日志区，一个字也不会被切成两半
const WIDE_REPLY = '宽字符按两列算，折行时一个汉字不会被切成两半，也不会挤出右边界；面板的竖线每一行都落在同一列。'.repeat(3);
// 中英混排：英文单词不从中间断
const MIXED_REPLY = '窄屏折行：English words stay whole when wrapped，中文按两列算，不会挤出右边界。'.repeat(3);
const WORDS = new Set(['English', 'words', 'stay', 'whole', 'when', 'wrapped']);
const FORTY = Array.from({ length: 40 }, (_, i) => `第 ${i + 1} 行`);

/** 一个终端和它的假模型；测试结束（不管成败）都关掉。 */
async function session(stage: string, cols: number, rows: number, run: (term: FullScreen, fake: FakeServer) => Promise<void>): Promise<void> {
    const fake = await startFakeOpenAI();
    const term = new FullScreen(stage, cols, rows, fake.url);
    try {
        await run(term, fake);
        assertNoRejections(fake);
    } finally {
        term.close();
        await fake.close();
    }
}

/** 日志里从 first 这一行开始、连起来（去掉空格）凑够 reply 的那几行：一段回复折成的行。 */
function replyRows(log: string[], first: string, reply: string): string[] {
    const start = log.findIndex((row) => row.startsWith(first));
    assert.ok(start >= 0, `日志里找不到「${first}」：\n${log.join('\n')}`);
    const want = reply.replace(/ /g, '');
    const rows: string[] = [];
    for (let i = start; i < log.length && rows.join('').replace(/ /g, '').length < want.length; i++) rows.push(log[i]);
    assert.equal(rows.join('').replace(/ /g, ''), want, `回复没有整段出现在日志里：\n${log.join('\n')}`);
    return rows;
}

/** 一段回复按日志区的宽度折行：每行不超过日志区，除了最后一行都差不多占满（short：行尾最多空出几列），英文单词不从中间断。 */
function assertWrapped(rows: string[], textCols: number, short: number): void {
    assert.ok(rows.length > 1, `回复应当折成好几行：${rows.join('\n')}`);
    rows.forEach((row, i) => {
        assert.ok(cells(row) <= textCols, `第 ${i + 1} 行超出了 ${textCols} 列：${row}`);
        if (i < rows.length - 1) assert.ok(cells(row) >= textCols - short, `第 ${i + 1} 行没有折到终端宽度（${cells(row)} / ${textCols} 列）：${row}`);
        for (const word of row.match(/[A-Za-z]+/g) ?? []) assert.ok(WORDS.has(word), `英文单词被从中间断开：${word}（${row}）`);
    });
}

/** 当前对话存下的消息（.geekagent/sessions.json）。 */
function savedHistory(term: FullScreen): string {
    const saved = JSON.parse(fs.readFileSync(path.join(term.cwd, '.geekagent', 'sessions.json'), 'utf8'));
    return JSON.stringify(saved.sessions[saved.current]);
}

describe('课的全屏界面（第 7 天）在 tmux 里', { skip: noTmux }, () => {
    for (const stage of STAGES_WITH_UI) {
        describe(stage, { concurrency: true }, () => {
            test('100×30：面板与用量、流式回复的宽字符折行、排队、Ctrl+C 取消、翻页、[y/N]，/exit 还原终端', () => session(stage, 100, 30, async (term, fake) => {
                // ---- 启动：备用屏幕，两栏，面板上有模型、对话、上下文估算，用量还是 0 ----
                let screen = await term.until('面板和开场白', (s) => term.panel(s).includes('模型 test-model')
                    && term.logText(s).includes('/help') && term.inputRow(s) === 'You ›');
                assert.equal(term.info('#{alternate_on}'), '1', '全屏界面应当在备用屏幕里');
                assert.ok(term.panel(screen).includes('对话 default'), term.panel(screen).join('\n'));
                assert.match(term.panel(screen).join('\n'), /\n上下文\n\d+ \/ 64000 tokens\n已用 1%\n/);
                const contextTokens = (s: string[]) => Number(/(\d+) \/ 64000 tokens/.exec(term.panel(s).join('\n'))?.[1]);
                const contextAtStart = contextTokens(screen);
                assert.equal(term.section(screen, '本轮'), '0 tokens');
                assert.equal(term.section(screen, '累计'), '0 tokens');
                assert.match(term.rule(screen), /^─{100}$/);
                term.assertAligned(screen);

                // ---- 流式回复：说到一半停住时已经看得见，分隔线说「回复中」；这时提交的一行排队 ----
                let release = () => {};
                const hold = new Promise<void>((resolve) => (release = resolve));
                fake.push({ kind: 'text', text: WIDE_REPLY, hold, usage: usage(1234) }, { kind: 'text', text: '收到排队的那句\x1b[2J', usage: usage(66) });
                const hello = '你好，请介绍一下你自己';
                term.type(hello);
                await term.until('输入行显示中文', (s) => term.inputRow(s) === `You › ${hello}`);
                term.press('Enter');
                screen = await term.until('回复说到一半', (s) => term.logText(s).includes(WIDE_REPLY) && term.rule(s).includes('回复中，Ctrl+C 取消'));
                assert.equal(term.section(screen, '本轮'), '0 tokens', '用量在流的最后一块，回复停住时还没有');
                assertWrapped(replyRows(term.log(screen), WIDE_REPLY.slice(0, 4), WIDE_REPLY), term.textCols, 1);
                term.assertAligned(screen);
                term.enter('排队的那句');
                await term.until('排队提示', (s) => term.rule(s).includes('1 条排队'));
                release();
                // 排队的那句接着发出；它的回复里的 \x1b[2J 显示成转义，清不了屏
                screen = await term.until('两轮都结束', (s) => term.logText(s).includes('收到排队的那句\\x1b[2J') && !/回复中|排队/.test(term.rule(s)));
                assert.ok(term.logText(screen).includes(WIDE_REPLY), '回复被清屏了');
                assert.equal(term.section(screen, '本轮'), '66 tokens');
                assert.equal(term.section(screen, '累计'), '1300 tokens');
                assert.ok(contextTokens(screen) > contextAtStart, `上下文估算没有跟着历史变：${contextAtStart} → ${contextTokens(screen)}`);
                assert.deepEqual(userTexts(fake.requests.at(-1)!.body).slice(-2), [hello, '排队的那句']);
                term.assertAligned(screen);

                // ---- Ctrl+C：回复进行中取消这一轮（不退出），排队的那句接着发出；取消的那一轮从历史里撤销 ----
                fake.push({ kind: 'hang', text: '这是一段很慢的回复，' }, text(FORTY.join('\n')));
                term.enter('慢慢说');
                await term.until('慢回复在流', (s) => term.logText(s).includes('这是一段很慢的回复') && term.rule(s).includes('回复中'));
                term.enter('排队的消息');
                await term.until('排队提示', (s) => term.rule(s).includes('1 条排队'));
                term.press('C-c');
                screen = await term.until('四十行列完且这一轮结束', (s) => term.log(s).includes('第 40 行') && !/回复中|排队/.test(term.rule(s)));
                assert.equal(term.info('#{alternate_on}'), '1', 'Ctrl+C 取消这一轮，不该退出');
                const queued = userTexts(fake.requests.at(-1)!.body);
                assert.equal(queued.at(-1), '排队的消息');
                assert.ok(!queued.includes('慢慢说'), '取消的那一轮应当从历史里撤销');

                // ---- PageUp 往上翻一页（分隔线说翻了几行），看到被取消的那一轮；PageDown 回到末尾 ----
                const visible = (s: string[], row: string) => term.log(s).includes(row);
                assert.ok(!visible(screen, '第 1 行'));
                term.press('PPage');
                screen = await term.until('往上翻一页', (s) => !visible(s, '第 40 行') && visible(s, '第 1 行'));
                assert.match(term.rule(screen), /往上翻了 \d+ 行，PageDown 回到末尾/);
                assert.ok(term.logText(screen).includes('You › 慢慢说这是一段很慢的回复，（已中断，本轮已撤销）You › 排队的消息'), term.logText(screen));
                term.press('NPage');
                screen = await term.until('翻回末尾', (s) => visible(s, '第 40 行') && !visible(s, '第 1 行'));
                assert.doesNotMatch(term.rule(screen), /往上翻/);

                // ---- write 的 [y/N]：问题里有 diff，输入行变成 [y/N]；答 y，文件写到磁盘上，本轮用量是两个请求的和 ----
                fake.push(
                    { kind: 'tools', calls: [call('w1', 'write', { path: '笔记.md', content: '# 标题\n第一行\n' })], usage: usage(100) },
                    { kind: 'text', text: '已经写好了笔记。', usage: usage(200) },
                );
                term.enter('帮我写一个笔记文件');
                screen = await term.until('确认问题', (s) => term.logText(s).includes('笔记.md？') && term.inputRow(s) === '[y/N]');
                assert.match(term.logText(screen), /\+# 标题\+第一行确认写入 .*笔记\.md？/);
                // 课在问题出现的同时显示 [y/N]，之后 SETTLE_MS 之内到的行算提前打的、只排队（第 7 天「为什么这样写」）。
                // 看见 [y/N] 时这段时间已经开始了，再等它一整段才回答：这是下限，机器再忙也只会更晚，回答一定算数
                await sleep(SETTLE_MS);
                term.enter('y');
                screen = await term.until('写入完成', (s) => term.logText(s).includes('已经写好了笔记。') && term.section(s, '本轮') === '300 tokens');
                assert.ok(term.log(screen).includes('[y/N] y'), term.logText(screen));
                assert.equal(term.section(screen, '累计'), '1600 tokens');
                assert.equal(fs.readFileSync(path.join(term.cwd, '笔记.md'), 'utf8'), '# 标题\n第一行\n');

                // ---- 问题出现之前打的字不算回答：回复停住时提交的 y 排队，问题出现时说一声；打在输入行里还没提交的 y 收起来，
                // 答完放回。之后只按回车（空行马上算「否」）：命令不执行，排队的 y 作为一句话发出 ----
                let releaseCommand = () => {};
                const commandHeld = new Promise<void>((resolve) => (releaseCommand = resolve));
                fake.push(
                    { kind: 'tools', text: '先说一句，', hold: commandHeld, calls: [call('c1', 'run_shell', { command: 'echo ran > ran.txt' })] },
                    text('命令已取消'),
                    text('收到排队的 y'),
                );
                term.enter('开始');
                await term.until('回复说到一半', (s) => term.logText(s).includes('先说一句，'));
                term.enter('y');
                await term.until('y 排队', (s) => term.rule(s).includes('1 条排队'));
                term.type('y');
                await term.until('没提交的 y 在输入行', (s) => term.inputRow(s) === 'You › y');
                releaseCommand();
                screen = await term.until('问题等着回答', (s) => term.logText(s).includes('即将执行命令：echo ran > ran.txt') && term.inputRow(s) === '[y/N]');
                assert.ok(term.logText(screen).includes('先说一句，（问题出现前打的 1 行已排队，不算回答，这一轮结束后照常处理）即将执行命令'), term.logText(screen));
                assert.ok(!fs.existsSync(path.join(term.cwd, 'ran.txt')), '提前打的 y 批准了命令');
                term.press('Enter');
                screen = await term.until('排队的 y 作为新的一轮', (s) => term.logText(s).includes('收到排队的 y') && !term.rule(s).includes('回复中'));
                assert.ok(term.log(screen).includes('[y/N]'), '回答应当是空行');
                assert.equal(term.inputRow(screen), 'You › y', '答完之后，没提交的 y 回到输入行');
                assert.ok(!fs.existsSync(path.join(term.cwd, 'ran.txt')), '命令不该执行');
                const answered = fake.requests.length;
                assert.match(toolMessages(fake.requests[answered - 2].body).at(-1).content, /取消|拒绝/);
                assert.deepEqual(userTexts(fake.requests[answered - 1].body).slice(-2), ['开始', 'y'], '排队的 y 应当作为新的一轮发出');
                term.press('BSpace');
                await term.until('退格删掉 y', (s) => term.inputRow(s) === 'You ›');

                // ---- 正在等 [y/N] 时按 Ctrl+C：替你答「否」、取消这一轮，接下来打的一行不会被当成回答 ----
                fake.push(tools(call('w2', 'write', { path: '不该写.txt', content: 'x' })), text('这是下一句的回复'));
                term.enter('再写一个');
                await term.until('第二个确认问题', (s) => term.logText(s).includes('不该写.txt？') && term.inputRow(s) === '[y/N]');
                term.press('C-c');
                screen = await term.until('这一轮取消', (s) => term.inputRow(s) === 'You ›' && !term.rule(s).includes('回复中'));
                assert.ok(term.logText(screen).endsWith('不该写.txt？[y/N][调用工具 write → 已取消写入]（已中断，本轮已撤销）'), term.logText(screen));
                term.enter('下一句');
                await term.until('下一句是新的一轮', (s) => term.logText(s).endsWith('You › 下一句这是下一句的回复'));
                assert.ok(!fs.existsSync(path.join(term.cwd, '不该写.txt')));
                assert.equal(userTexts(fake.requests.at(-1)!.body).at(-1), '下一句');

                // ---- /exit：离开备用屏幕，原来的屏幕内容回来，保存对话，终端回到普通模式 ----
                term.enter('/exit');
                screen = await term.exited();
                assertRestored(term, screen);
                assert.match(screen.join('\n'), /退出前已保存 1 个对话/);
                await assertEchoes(term);
            }));

            test('59 列不显示面板、按宽度折行；拉宽到 60 列面板出现、重新折行；回复进行中按 Ctrl+D 退出并还原终端', () => session(stage, 59, 20, async (term, fake) => {
                let screen = await term.until('启动', (s) => term.logText(s).includes('/help') && term.inputRow(s) === 'You ›');
                assert.ok(screen.every((line) => !line.includes('│')), `59 列时不该有面板：\n${screen.join('\n')}`);
                assert.match(term.rule(screen), /^─{59}$/);

                fake.push({ kind: 'text', text: MIXED_REPLY, usage: usage(42) });
                term.enter('窄屏测试');
                screen = await term.until('回复整段可见', (s) => term.logText(s).replace(/ /g, '').includes(MIXED_REPLY.replace(/ /g, '')));
                // 行尾最多空出断不开的一段（「wrapped，」，9 列）加上它前面的空格：单词整个移到下一行
                assertWrapped(replyRows(term.log(screen), MIXED_REPLY.slice(0, 4), MIXED_REPLY), term.textCols, 10);

                term.resize(60);
                screen = await term.until('60 列出现面板', (s) => term.panel(s).includes('模型 test-model'));
                assert.equal(term.section(screen, '累计'), '42 tokens');
                term.assertAligned(screen);
                assertWrapped(replyRows(term.log(screen), MIXED_REPLY.slice(0, 4), MIXED_REPLY), term.textCols, 10);
                term.resize(59);
                await term.until('再变窄面板消失', (s) => s.every((line) => !line.includes('│')));

                fake.push({ kind: 'hang', text: '说到一半，' });
                term.enter('说到一半就退出');
                await term.until('回复进行中', (s) => term.logText(s).includes('说到一半，') && term.rule(s).includes('回复中'));
                term.press('C-d');
                screen = await term.exited();
                assertRestored(term, screen, false);
                assert.match(screen.join('\n'), /退出前已保存 1 个对话/);
                const history = savedHistory(term);
                assert.ok(history.includes('窄屏测试') && !history.includes('说到一半就退出'), '进行中的一轮应当撤销后再保存');
                await assertEchoes(term);
            }));

            test('kill（SIGTERM）：和 /exit 一样还原终端并保存对话', () => session(stage, 80, 16, async (term, fake) => {
                fake.push(text('记住了'));
                await term.until('启动', (s) => term.inputRow(s) === 'You ›');
                term.enter('记住这句');
                await term.until('回复', (s) => term.log(s).includes('记住了') && !term.rule(s).includes('回复中'));
                process.kill(term.agentPid(), 'SIGTERM');
                const screen = await term.exited();
                assertRestored(term, screen);
                assert.ok(savedHistory(term).includes('记住这句'), '对话没有保存');
                await assertEchoes(term);
            }));

            test('关掉终端窗口（SIGHUP）：和 /exit 一样走退出流程，对话保存', () => session(stage, 80, 16, async (term) => {
                await term.until('启动', (s) => term.inputRow(s) === 'You ›');
                term.enter('关窗口之前说的');
                await term.until('回复', (s) => term.log(s).includes('ok') && !term.rule(s).includes('回复中'));
                const file = path.join(term.cwd, '.geekagent', 'sessions.json');
                term.close();   // 关掉 tmux 会话：终端没了，Agent 的 stdin 读到结尾、收到 SIGHUP
                await waitUntil('窗口关掉之后对话存到了磁盘上', () => fs.existsSync(file) && savedHistory(term).includes('关窗口之前说的'));
            }));

            test('空闲时 Ctrl+C 先清空输入行，再按一次退出并还原终端', () => session(stage, 80, 16, async (term) => {
                await term.until('启动', (s) => term.inputRow(s) === 'You ›');
                term.type('打了一半');
                await term.until('输入行有字', (s) => term.inputRow(s) === 'You › 打了一半');
                term.press('C-c');
                await term.until('输入行清空', (s) => term.inputRow(s) === 'You ›');
                assert.equal(term.info('#{alternate_on}'), '1', '输入行有字时 Ctrl+C 只清空它，不该退出');
                term.press('C-c');
                assertRestored(term, await term.exited());
                await assertEchoes(term);
            }));
        });
    }
});
