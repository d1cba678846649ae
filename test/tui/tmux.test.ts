// 全屏界面的端到端测试：在 tmux 开的真实终端里运行加固版的真实入口，连假 OpenAI 服务，
// 用 send-keys 打字、按键，用 capture-pane 读屏幕（纯文字，没有颜色）。
// 单元测试只能证明 renderFrame 算得对；这里看的是终端真正画出来的样子：宽字符对齐、备用屏幕、光标、恢复终端。
// 所有等待都是“轮询到条件成立或超时”，不用固定的 sleep；超时报错会带上当时的整屏内容。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { call, text, tools, type Usage } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI, type FakeServer } from '../../scripts/fake-model/server.ts';
import { userTexts } from '../helpers/agent.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { assertRestored, cells, FullScreen } from '../helpers/fullscreen.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { noTmux, tmux } from '../helpers/terminal.ts';

const usage = (total: number): Usage => ({ prompt_tokens: total - 10, completion_tokens: 10, total_tokens: total });

describe('tmux 里的全屏界面', { skip: noTmux }, () => {
    for (const stage of HARDENED_ONLY) {
        describe(stage, () => {
            let fake: FakeServer;
            const terms: FullScreen[] = [];
            const open = (cols: number, rows: number) => {
                const term = new FullScreen(stage, cols, rows, fake.url);
                terms.push(term);
                return term;
            };

            before(async () => {
                fake = await startFakeOpenAI();
            });
            // 不管测试成败，会话都要关掉（会话里的入口随 SIGHUP 走退出流程）
            after(async () => {
                for (const term of terms) term.close();
                await fake.close();
            });

            test('100×30：面板、中文输入、流式回复与用量、写文件确认、Esc 取消、排队、翻页、粘贴、确认中 Ctrl+D 退出', async () => {
                const term = open(100, 30);

                // ---- 启动：两栏，面板上有模型名和上下文窗口 64000 ----
                let screen = await term.until('面板和开场白出现', (s) => term.panel(s).includes('模型 test-model')
                    && s.join('\n').includes('64000') && term.logText(s).includes('/help'));
                assert.equal(term.info('#{alternate_on}'), '1', '全屏界面应当在备用屏幕里');
                assert.equal(term.info('#{mouse_sgr_flag}'), '1', '应当打开 SGR 鼠标上报');
                assert.match(term.logText(screen), /GeekAgent — 加固版/);
                assert.match(term.panel(screen).join('\n'), /\n\d+ \/ 64000 tokens\n已用 1%/);
                const contextTokens = (s: string[]) => Number(/(\d+) \/ 64000 tokens/.exec(term.panel(s).join('\n'))?.[1]);
                const contextAtStart = contextTokens(screen);
                assert.equal(term.section(screen, '本轮'), '0 tokens');
                assert.equal(term.section(screen, '累计'), '0 tokens');
                assert.match(term.rule(screen), /^─{100}$/);
                assert.equal(term.inputRow(screen), 'You ›');
                term.assertAligned(screen);

                // ---- 打中文，光标跟在文字后面（输入法候选框靠它定位）；回车后流式回复进日志，用量变成真实数字 ----
                const hello = '你好，GeekAgent！请介绍一下你自己';
                fake.push({ kind: 'text', text: '✅ 收到！我是一个在终端里运行的编程助手，可以读写文件、执行命令。⭐', usage: usage(1234) });
                term.type(hello);
                await term.until('输入行显示中文', (s) => term.inputRow(s) === `You › ${hello}`);
                assert.equal(term.info('#{cursor_x},#{cursor_y}'), `${cells(`You › ${hello}`)},29`);
                term.press('Enter');
                screen = await term.until('回复和用量', (s) => term.logText(s).includes('执行命令。⭐') && term.section(s, '累计') === '1234 tokens');
                const log = term.logText(screen);
                assert.ok(log.includes(`You › ${hello}`), log);
                assert.ok(log.includes('✅ 收到！我是一个在终端里运行的编程助手'), log);
                assert.equal(term.section(screen, '本轮'), '1234 tokens');
                // 上下文估算跟着历史变：这一问一答进了历史，估算值必须变大（面板按历史缓存，不能一直显示旧值）
                assert.ok(contextTokens(screen) > contextAtStart, `上下文估算没有更新：${contextAtStart} → ${contextTokens(screen)}`);
                assert.equal(term.inputRow(screen), 'You ›');
                term.assertAligned(screen);   // 这一屏有中文和 emoji，竖线仍要对齐
                assert.deepEqual(userTexts(fake.requests.at(-1)!.body).at(-1), hello);

                // ---- write 工具：输入行变成 [y/N]，答 y，文件写到磁盘上 ----
                fake.push(
                    { kind: 'tools', calls: [call('w1', 'write', { path: '笔记.md', content: '# 标题\n第一行\n' })], usage: usage(100) },
                    { kind: 'text', text: '已经写好了笔记。', usage: usage(200) },
                );
                term.type('帮我写一个笔记文件');
                term.press('Enter');
                screen = await term.until('确认提示', (s) => term.inputRow(s).startsWith('[y/N]'));
                assert.match(term.logText(screen), /\+# 标题\+第一行确认写入 .*笔记\.md？/);
                await term.answer('y');
                screen = await term.until('写入完成', (s) => term.logText(s).includes('已经写好了笔记。') && term.section(s, '累计') === '1534 tokens');
                assert.match(term.logText(screen), /笔记\.md？ → y/);
                assert.equal(term.section(screen, '本轮'), '300 tokens');
                assert.equal(fs.readFileSync(path.join(term.cwd, '笔记.md'), 'utf8'), '# 标题\n第一行\n');

                // ---- 回复进行中（说了一段就停住，直到被取消）：分隔线提示可取消，再打一行会排队；Esc 取消，排队的那行接着处理 ----
                const slow = '这是一段很慢的回复，'.repeat(30);
                const lines = Array.from({ length: 40 }, (_, i) => `第 ${i + 1} 行`);
                fake.push({ kind: 'hang', text: slow }, text(lines.join('\n')));
                term.type('慢慢说');
                term.press('Enter');
                screen = await term.until('流式输出中', (s) => term.logText(s).includes('这是一段很慢') && term.rule(s).includes('回复中，Esc 取消'));
                term.type('排队的消息');
                term.press('Enter');
                await term.until('排队提示', (s) => term.rule(s).includes('1 条排队'));
                term.press('Escape');
                // 最后一段文字先画出来，这一轮结束（分隔线上的提示消失）要再晚一帧
                screen = await term.until('列出四十行且这一轮结束', (s) => term.logText(s).includes('第 40 行') && !/回复中|排队/.test(term.rule(s)));
                assert.ok(fake.requests.length >= 5);
                const queued = userTexts(fake.requests.at(-1)!.body);
                assert.equal(queued.at(-1), '排队的消息');
                assert.ok(!queued.includes('慢慢说'), '取消的那一轮应当从历史里撤销');

                // ---- 翻页：PageUp 看到更早的内容（被中断的那一行），PageDown 回到末尾 ----
                const visible = (s: string[], text: string) => term.log(s).includes(text);
                assert.ok(!visible(screen, '第 1 行'));
                term.press('PPage');
                screen = await term.until('往上翻一页', (s) => !visible(s, '第 40 行') && visible(s, '第 1 行'));
                assert.ok(term.logText(screen).includes('（已中断，本轮已撤销）'), term.logText(screen));
                term.press('NPage');
                await term.until('翻回末尾', (s) => visible(s, '第 40 行') && !visible(s, '第 1 行'));
                // 鼠标滚轮（SGR 上报，按钮 64 / 65）：一格 3 行
                term.type('\x1b[<64;10;5M');
                await term.until('滚轮往上', (s) => visible(s, '第 37 行') && !visible(s, '第 38 行'));
                term.type('\x1b[<65;10;5M');
                await term.until('滚轮回到末尾', (s) => visible(s, '第 40 行'));

                // ---- 括号粘贴：多行内容成为一行输入；空闲时 Ctrl+C 先清空输入而不退出 ----
                tmux('set-buffer', '-b', 'paste', '粘贴的第一行\n第二行');
                tmux('paste-buffer', '-p', '-d', '-b', 'paste', '-t', term.name);
                await term.until('粘贴进输入行', (s) => term.inputRow(s) === 'You › 粘贴的第一行 第二行');
                term.press('C-c');
                await term.until('输入行被清空', (s) => term.inputRow(s) === 'You ›');
                assert.equal(term.info('#{alternate_on}'), '1');

                // ---- 正在等 [y/N] 时按 Ctrl+D：视为拒绝，回滚这一轮，保存、bye、恢复原来的屏幕 ----
                fake.push(tools(call('w2', 'write', { path: '不该写.txt', content: 'x' })));
                term.type('再写一个');
                term.press('Enter');
                await term.until('第二次确认提示', (s) => term.inputRow(s).startsWith('[y/N]'));
                term.press('C-d');
                screen = await term.exited();
                assertRestored(term, screen);
                assert.match(screen.join('\n'), /已保存 1 个对话/);
                assert.ok(!fs.existsSync(path.join(term.cwd, '不该写.txt')));
                const saved = JSON.parse(fs.readFileSync(path.join(term.cwd, '.geekagent', 'sessions.json'), 'utf8'));
                const history = JSON.stringify(saved.sessions[saved.current]);
                assert.ok(history.includes('排队的消息') && !history.includes('再写一个'), '确认中退出的那一轮应当回滚后再保存');
                assertNoRejections(fake);
            });

            test('59 列隐藏面板、60 列显示；窄屏折行；空闲时 Ctrl+D 退出', async () => {
                const term = open(59, 20);
                let screen = await term.until('启动', (s) => term.logText(s).includes('/help') && term.inputRow(s) === 'You ›');
                assert.ok(screen.every((line) => !line.includes('│')), `59 列时不该有面板：\n${screen.join('\n')}`);
                assert.match(term.rule(screen), /^─{59}$/);

                const reply = '窄屏下的回复也要按显示宽度折行，中文字符不能被切成两半，也不能超出右边界。'.repeat(2);
                fake.push({ kind: 'text', text: reply, usage: usage(42) });
                term.type('窄屏测试');
                term.press('Enter');
                await term.until('窄屏回复整段可见（宽字符没有被切开或挤出右边界）', (s) => term.logText(s).includes(reply));

                term.resize(60);
                screen = await term.until('60 列出现面板', (s) => term.panel(s).includes('模型 test-model'));
                assert.equal(term.section(screen, '累计'), '42 tokens');
                term.assertAligned(screen);
                term.resize(59);
                await term.until('再变窄面板消失', (s) => s.every((line) => !line.includes('│')));

                term.press('C-d');
                screen = await term.exited();
                // 改过窗口大小后，tmux 恢复普通屏幕时光标可能落在别处、把标记行挤进历史，所以这里不查标记
                assertRestored(term, screen, false);
            });
        });
    }
});
