import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { applyKey } from '../../hardened/editor.ts';
import { isYes } from '../../hardened/input.ts';
import { LOG_LIMIT, type Log } from '../../hardened/log.ts';
import { cursorPosition, renderFrame } from '../../hardened/render.ts';
import { displayWidth, truncateToWidth, type Key } from '../../hardened/term.ts';
import { Tui } from '../../hardened/tui.ts';
import { createState, scrollLog, type TuiState } from '../../hardened/view.ts';

// renderFrame 只输出颜色序列
const plain = (lines: string[]) => lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
// 一条日志的原文：按足够宽的宽度折行，就只在原文的换行处断开
const entryText = (log: Log, seq: number) => log.rows(seq, 100_000).join('\n');
// 每帧是一次 write，以同步输出的开始序列打头
const FRAME_START = '\x1b[?2026h';
const frameCount = (output: { text: string }) => output.text.split(FRAME_START).length - 1;
const PANEL = ['模型 deepseek-v4-flash', '会话 default', '根目录 …/project', '─ 上下文', '120 / 64000 tokens', '1% 已用'];

function stateWith(lines: number, prefix = 'line'): TuiState {
    const s = createState();
    for (let i = 0; i < lines; i++) s.log.append(`${prefix} ${i}`, 'model');
    s.panel = PANEL;
    return s;
}

// 日志区（去掉左边 1 列空白，去掉面板）的可见文字
function logText(s: TuiState, cols: number, rows: number): string[] {
    const logCols = cols >= 60 ? cols - 29 : cols;
    return plain(renderFrame(s, cols, rows)).slice(0, rows - 2).map((l) => truncateToWidth(l, logCols).slice(1).trimEnd());
}

test('80×24：行数、每行宽度、面板、分隔线和提示符', () => {
    const s = stateWith(5);
    s.log.append('错误信息', 'error');
    const frame = renderFrame(s, 80, 24);
    assert.equal(frame.length, 24);
    const text = plain(frame);
    for (const line of text.slice(0, 23)) assert.equal(displayWidth(line), 80);
    assert.equal(text[0].slice(0, 51), ' line 0'.padEnd(51));
    assert.equal(text[0].slice(51), ' │ 模型 deepseek-v4-flash    ');
    assert.equal(text[3].slice(51), ' │ ─ 上下文 ─────────────────');
    assert.equal(text[10].slice(51), ' │' + ' '.repeat(27));
    assert.match(text[22], /^─{80}$/);
    assert.equal(text[23], 'You › ');
    assert.ok(frame[5].includes('\x1b[31m错误信息'));   // 错误行是红色
    assert.ok(frame[0].includes('\x1b[90m│'));         // 面板是灰色
    assert.deepEqual(cursorPosition(s, 80, 24), { row: 23, col: 6 });
});

test('59 列：面板隐藏，日志占满宽度', () => {
    const s = stateWith(3);
    s.log.append('x'.repeat(70), 'tool');
    const text = plain(renderFrame(s, 59, 24));
    assert.equal(text.length, 24);
    assert.ok(!text.some((l) => l.includes('│')));
    for (const line of text.slice(0, 23)) assert.equal(displayWidth(line), 59);
    assert.equal(text[3], ' ' + 'x'.repeat(58));
    assert.equal(text[4], ' ' + 'x'.repeat(12) + ' '.repeat(46));
    assert.deepEqual(logText(s, 60, 24).slice(0, 3), ['line 0', 'line 1', 'line 2']);   // 60 列时面板又出现
    assert.ok(plain(renderFrame(s, 60, 24))[0].includes('│ 模型'));
});

test('中文：按显示宽度折行，宽字符不跨边，面板截到 26 列', () => {
    const s = createState();
    s.panel = ['根目录 ' + '很长的目录名'.repeat(5)];
    s.log.append('你好，这是一段很长的中文回复，用来检查折行是否按照显示宽度进行，并且不会把一个汉字劈成两半。', 'model');
    const text = plain(renderFrame(s, 80, 24));
    for (const line of text.slice(0, 23)) assert.equal(displayWidth(line), 80);
    const rows = logText(s, 80, 24).filter((l) => l);
    assert.equal(rows.length, 2);
    assert.ok(displayWidth(rows[0]) <= 50 && displayWidth(rows[0]) >= 49);
    assert.equal(rows.join(''), '你好，这是一段很长的中文回复，用来检查折行是否按照显示宽度进行，并且不会把一个汉字劈成两半。');
    assert.equal(displayWidth(text[0]) - displayWidth(truncateToWidth(text[0], 51)), 29);
    assert.ok(text[0].endsWith('│ 根目录 很长的目录名很长的 '));
    s.input = Array.from('中文输入');
    s.cursor = 2;
    assert.deepEqual(cursorPosition(s, 80, 24), { row: 23, col: 6 + 4 });
});

test('日志只保留最后 1000 行，跟随末尾', () => {
    const s = stateWith(1500);
    assert.equal(s.log.end - s.log.first, LOG_LIMIT);
    assert.equal(s.log.first, 500);
    assert.equal(entryText(s.log, s.log.first), 'line 500');
    const rows = logText(s, 80, 24);
    assert.equal(rows[21], 'line 1499');
    assert.equal(rows[0], 'line 1478');
});

test('滚动：滚轮 3 行、翻页、往上翻时新内容不打扰视图、滚回末尾恢复跟随', () => {
    const s = stateWith(100);
    const key = (name: string) => applyKey(s, { type: 'key', name } as Key, 80, 24);
    key('wheelup');
    assert.equal(logText(s, 80, 24)[21], 'line 96');
    key('pageup');
    assert.equal(logText(s, 80, 24)[21], 'line 75');
    s.log.append('新的一行', 'model');
    assert.equal(logText(s, 80, 24)[21], 'line 75');   // 视图不动
    key('pagedown');
    key('wheeldown');
    assert.equal(logText(s, 80, 24)[21], 'line 99');
    key('wheeldown');
    assert.equal(s.scroll, null);
    assert.equal(logText(s, 80, 24)[21], '新的一行');
    scrollLog(s, 10_000, 80, 24);   // 到顶为止
    assert.equal(logText(s, 80, 24)[0], 'line 0');
    scrollLog(s, -10_000, 80, 24);
    assert.equal(s.scroll, null);
    const short = stateWith(3);   // 不满一屏时滚动无效
    scrollLog(short, 3, 80, 24);
    assert.equal(short.scroll, null);
});

test('流式 appendInline 的增量折行与一次性追加结果一致', () => {
    const reply = '第一段：流式输出的文字。\nSecond paragraph is written in English and keeps going for a while. '.repeat(8);
    const a = stateWith(10);
    for (let i = 0; i < reply.length; i += 7) {
        a.log.appendInline(reply.slice(i, i + 7), 'model');
        renderFrame(a, 80, 24);   // 每块都画一帧，缓存随之增量更新
    }
    const b = stateWith(10);
    b.log.appendInline(reply, 'model');
    assert.deepEqual(renderFrame(a, 80, 24), renderFrame(b, 80, 24));
    assert.deepEqual(renderFrame(a, 100, 30), renderFrame(b, 100, 30));   // 换宽度重折
    a.log.appendInline('思考', 'reasoning');   // 换颜色另起一条
    assert.equal(entryText(a.log, a.log.end - 1), '思考');
});

test('append 按换行拆行、CRLF 归一、控制字符（连同颜色序列）显示成可见的转义', () => {
    const s = createState();
    s.log.append('a\r\nb\tc\x07\x1b[2Jd\x1b[33me', 'system');
    assert.equal(s.log.end, 2);
    assert.equal(entryText(s.log, 0), 'a');
    assert.equal(entryText(s.log, 1), 'b    c\\x07\\x1b[2Jd\\x1b[33me');
});

test('面板文字（可能来自项目配置）里的控制字符显示成可见的转义', () => {
    const s = stateWith(1);
    s.panel = ['根目录 \x1b]52;c;eA==\x07x', 'MCP a\x1b[2J'];
    const frame = renderFrame(s, 80, 24);
    assert.equal(plain(frame)[0].slice(51), ' │ 根目录 \\x1b]52;c;eA==\\x07x');
    assert.ok(plain(frame)[1].includes('MCP a\\x1b[2J'));
    assert.ok(frame.every((line) => !/\x1b(?!\[[0-9;]*m)/.test(line)), frame.join('\n'));   // 只剩自己加的颜色
});

test('输入编辑：文字、中文、光标移动、退格、删除、粘贴', () => {
    const s = createState();
    const feed = (keys: Key[]) => keys.map((k) => applyKey(s, k, 80, 24));
    const k = (name: string) => ({ type: 'key', name }) as Key;
    feed([{ type: 'text', text: 'ac' }, k('left'), { type: 'text', text: '中b' }]);
    assert.equal(s.input.join(''), 'a中bc');
    feed([k('home'), k('delete'), k('end'), k('backspace'), k('left'), k('backspace')]);
    assert.equal(s.input.join(''), 'b');
    feed([k('end'), { type: 'paste', text: 'line1\nline2\n' }]);
    assert.equal(s.input.join(''), 'bline1 line2 ');
    assert.deepEqual(applyKey(s, k('enter'), 80, 24), { type: 'submit', line: 'bline1 line2' });
    assert.equal(s.input.length, 0);
    assert.equal(applyKey(s, k('enter'), 80, 24), null);   // 空行不提交
    s.confirming = true;
    assert.deepEqual(applyKey(s, k('enter'), 80, 24), { type: 'submit', line: '' });
    assert.equal(isYes(' Y '), true);
    assert.equal(isYes('yes'), true);   // 和行模式一样，y 和 yes 都算同意
    assert.equal(isYes('yess'), false);
});

test('↑/↓ 调出本次输入过的内容，草稿保留', () => {
    const s = createState();
    const k = (name: string) => applyKey(s, { type: 'key', name } as Key, 80, 24);
    for (const line of ['first', 'second']) {
        applyKey(s, { type: 'text', text: line }, 80, 24);
        k('enter');
    }
    applyKey(s, { type: 'text', text: 'draft' }, 80, 24);
    k('up');
    assert.equal(s.input.join(''), 'second');
    k('up');
    k('up');
    assert.equal(s.input.join(''), 'first');
    k('down');
    k('down');
    assert.equal(s.input.join(''), 'draft');
});

test('Esc / Ctrl+C / Ctrl+D', () => {
    const s = createState();
    const k = (name: string) => applyKey(s, { type: 'key', name } as Key, 80, 24);
    assert.equal(k('escape'), null);
    applyKey(s, { type: 'text', text: 'x' }, 80, 24);
    assert.equal(k('ctrl-c'), null);   // 空闲有内容：清空
    assert.equal(s.input.length, 0);
    assert.deepEqual(k('ctrl-c'), { type: 'exit' });
    s.busy = true;
    assert.deepEqual(k('escape'), { type: 'cancel' });
    assert.deepEqual(k('ctrl-c'), { type: 'cancel' });
    assert.deepEqual(k('ctrl-d'), { type: 'exit' });
});

test('长输入水平滚动，光标始终可见', () => {
    const s = createState();
    applyKey(s, { type: 'text', text: '汉'.repeat(100) }, 40, 10);
    const line = plain(renderFrame(s, 40, 10))[9];
    assert.ok(displayWidth(line) <= 40);
    assert.ok(cursorPosition(s, 40, 10).col <= 39);
    s.busy = true;
    s.queued = 2;
    assert.match(plain(renderFrame(s, 40, 10))[8], /回复中，Esc 取消 · 2 条排队 ──$/);
});

function fakeTerminal(cols = 80, rows = 24) {
    const input = Object.assign(new PassThrough(), { raw: false, setRawMode(on: boolean) { input.raw = on; return input; } });
    const output = Object.assign(new Writable({ write(chunk, _enc, cb) { output.text += chunk; cb(); } }), {
        text: '', columns: cols, rows,
    });
    return { input, output };
}

test('Tui：启动进入备用屏幕，按键回调，确认问答，stop 恢复终端且可重复调用', async () => {
    const { input, output } = fakeTerminal();
    const calls: string[] = [];
    const tui = new Tui({
        input: input as unknown as NodeJS.ReadStream,
        output: output as unknown as NodeJS.WriteStream,
        onSubmit: (line) => calls.push(`submit:${line}`),
        onCancel: () => calls.push('cancel'),
        onExit: () => calls.push('exit'),
        panel: () => PANEL,
    });
    const exitListeners = process.listenerCount('exit');
    tui.start();
    assert.equal(input.raw, true);
    assert.ok(output.text.includes('\x1b[?1049h') && output.text.includes('\x1b[?2004h'));
    assert.equal(process.listenerCount('exit'), exitListeners + 1);
    input.emit('data', Buffer.from('你好\r'));
    input.emit('data', Buffer.from([0xe4, 0xb8]));   // 拆开的 “中”
    input.emit('data', Buffer.from([0xad, 0x0d]));
    tui.setBusy(true);
    input.emit('data', '\x03');
    input.emit('data', '\x1b');
    await new Promise((r) => setTimeout(r, 60));   // 等单独 ESC 的超时
    tui.showQuestion('--- a.txt\n+++ a.txt\n\n写入 a.txt？');
    assert.equal(tui.state.confirming, false, '问题刚显示时输入行还不是 [y/N]');
    tui.promptAnswer();
    assert.equal(tui.state.confirming, true);
    tui.answerQuestion('y');
    assert.equal(entryText(tui.state.log, tui.state.log.end - 1), '写入 a.txt？ → y');
    tui.showQuestion('');
    tui.append('别的输出', 'system');
    tui.answerQuestion('n');
    assert.equal(entryText(tui.state.log, tui.state.log.end - 1), '确认 → n');
    tui.setBusy(false);
    input.emit('data', '\x04');
    assert.deepEqual(calls, ['submit:你好', 'submit:中', 'cancel', 'cancel', 'exit']);
    tui.renderNow();
    const frames = frameCount(output);
    tui.stop();
    tui.stop();
    assert.equal(input.raw, false);
    assert.ok(output.text.endsWith('\x1b[?1049l'));
    assert.equal(output.text.split('\x1b[?1049l').length, 2);   // 只恢复一次
    assert.equal(process.listenerCount('exit'), exitListeners);
    tui.append('停止后不再绘制', 'system');
    tui.renderNow();
    assert.equal(frameCount(output), frames);
});

test('Tui：重绘合并到每 FRAME_MS（17 毫秒）最多一帧', async () => {
    const { input, output } = fakeTerminal();
    const tui = new Tui({
        input: input as unknown as NodeJS.ReadStream, output: output as unknown as NodeJS.WriteStream,
        onSubmit() {}, onCancel() {}, onExit() {}, panel: () => [],
    });
    tui.start();
    const start = frameCount(output);
    for (let i = 0; i < 500; i++) tui.appendInline('流式文字 ', 'model');
    await new Promise((r) => setTimeout(r, 40));
    const frames = frameCount(output) - start;
    assert.ok(frames <= 2, `frames=${frames}`);
    tui.stop();
});
