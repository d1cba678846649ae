// day08（课）的全屏界面里不碰终端的部分：按键解码、显示宽度、折行，以及 frame() 画出的一帧。
// 章节第 7 天说的：中文按 2 列、面板的竖线每一行都在同一列、窄于 60 列不显示面板、分隔线上的「回复中」「N 条排队」、翻页翻过头停在最早一行。
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { frame, YOU, type ScreenState } from '../../day08/render.ts';
import { decodeKeys, fit, width, wrap } from '../../day08/term.ts';

const plain = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, '');

function state(patch: Partial<ScreenState> = {}): ScreenState {
    return { log: [], input: '', prompt: YOU, busy: false, queued: 0, scroll: 0, panel: [], ...patch };
}

describe('day08 终端小工具', () => {
    test('按键：文字连成一段，回车、退格、Ctrl+C、Ctrl+D、翻页各是一个键，别的序列和控制字符跳过', () => {
        assert.deepEqual(decodeKeys('ab\r\x1b[5~\x1b[A中文\x7f\x03\x04\x1b[6~\ttoString'), [
            { type: 'text', text: 'ab' }, { type: 'enter' }, { type: 'pageup' }, { type: 'text', text: '中文' },
            { type: 'backspace' }, { type: 'ctrl-c' }, { type: 'ctrl-d' }, { type: 'pagedown' }, { type: 'text', text: 'toString' },
        ]);
    });

    test('宽度：汉字、假名、谚文、全角和 emoji 占 2 列，组合符号占 0 列', () => {
        assert.equal(width('a汉か한Ａ✅🎉'), 13);
        assert.equal(width('e\u0301'), 1);
    });

    test('折行：每行不超过列数，尽量断在空格或汉字后面，太长的词硬断', () => {
        assert.deepEqual(wrap('hello world again', 12), ['hello world ', 'again']);
        assert.deepEqual(wrap('abcdefghijklmnop', 5), ['abcde', 'fghij', 'klmno', 'p']);
        for (const row of wrap('中文和 English 混排的一行字，要折成好几行才放得下', 9)) assert.ok(width(row) <= 9, row);
    });

    test('截断补齐：正好那么多列，放不下的宽字符整个不要', () => {
        assert.equal(fit('汉字汉', 5), '汉字 ');
        assert.equal(width(fit('ab', 6)), 6);
    });
});

describe('day08 frame()', () => {
    test('每行正好占满终端宽度，面板的竖线都在同一列（中文按 2 列算）', () => {
        const s = state({ log: [{ text: '你好，世界 hello', color: 'model' }, { text: '第二行', color: 'user' }], panel: ['模型 m', '对话 default'] });
        const { lines } = frame(s, 80, 10);
        assert.equal(lines.length, 10);
        const bodies = lines.slice(0, 8).map(plain);
        for (const line of bodies) assert.equal(width(line), 80, line);
        const bar = (line: string) => width(line.slice(0, line.indexOf('│')));
        assert.ok(bodies.every((line) => bar(line) === bar(bodies[0])));
        assert.match(bodies[0], /你好，世界 hello/);
    });

    test('终端窄于 60 列时不显示面板', () => {
        const { lines } = frame(state({ panel: ['模型 m'] }), 59, 6);
        assert.ok(lines.every((line) => !plain(line).includes('│')));
    });

    test('分隔线说「回复中」和排队的行数；输入行是提示符加打的字，光标在字的后面', () => {
        const { lines, cursor } = frame(state({ busy: true, queued: 2, input: '你好' }), 80, 6);
        assert.match(plain(lines[4]), /回复中，Ctrl\+C 取消 · 2 条排队 ──$/);
        assert.equal(plain(lines[5]), 'You › 你好');
        assert.equal(cursor, width('You › 你好') + 1);
    });

    test('往上翻：显示更早的行；翻过头停在最早的一行', () => {
        const log = Array.from({ length: 30 }, (_, i) => ({ text: `第 ${i + 1} 行`, color: 'model' as const }));
        const tail = frame(state({ log }), 40, 12);
        assert.match(plain(tail.lines[9]), /第 30 行/);
        const up = frame(state({ log, scroll: 5 }), 40, 12);
        assert.match(plain(up.lines[9]), /第 25 行/);
        assert.match(plain(up.lines[10]), /往上翻了 5 行/);
        const top = frame(state({ log, scroll: 999 }), 40, 12);
        assert.equal(top.scroll, 20);
        assert.match(plain(top.lines[0]), /第 1 行/);
    });
});
