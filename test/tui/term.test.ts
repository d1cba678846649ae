import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
    KeyDecoder, displayWidth, padToWidth, truncateToWidth, wrapText, type Key,
} from '../../hardened/term.ts';

const names = (keys: Key[]) => keys.map((k) => (k.type === 'key' ? k.name : `${k.type}:${k.text}`));

test('解码普通按键、控制键和可打印文字', () => {
    const d = new KeyDecoder();
    assert.deepEqual(names(d.feed('ab\r\x7f\x08\x03\x04\t')), [
        'text:ab', 'enter', 'backspace', 'backspace', 'ctrl-c', 'ctrl-d',
    ]);
    assert.deepEqual(names(d.feed(Buffer.from('你好，世界'))), ['text:你好，世界']);
});

test('解码 CSI / SS3 方向键、Home/End 各种写法、Delete、翻页', () => {
    const d = new KeyDecoder();
    const seq = '\x1b[A\x1b[B\x1b[C\x1b[D\x1b[H\x1b[F\x1b[1~\x1b[4~\x1b[7~\x1b[8~\x1b[3~\x1b[5~\x1b[6~\x1bOA\x1bOH\x1b[1;5C';
    assert.deepEqual(names(d.feed(seq)), [
        'up', 'down', 'right', 'left', 'home', 'end', 'home', 'end', 'home', 'end',
        'delete', 'pageup', 'pagedown', 'up', 'home', 'right',
    ]);
});

test('拆在两次 feed 之间的转义序列', () => {
    const d = new KeyDecoder();
    assert.deepEqual(d.feed('x\x1b'), [{ type: 'text', text: 'x' }]);
    assert.equal(d.pending, true);
    assert.deepEqual(d.feed('['), []);
    assert.deepEqual(names(d.feed('5~y')), ['pageup', 'text:y']);
    assert.deepEqual(names(d.feed('\x1b[<6')), []);
    assert.deepEqual(names(d.feed('4;10;5M\x1b[<65;1;1M\x1b[<0;3;3M')), ['wheelup', 'wheeldown']);
});

test('拆开的 UTF-8 多字节字符', () => {
    const d = new KeyDecoder();
    const bytes = Buffer.from('中文😀');
    const out: Key[] = [];
    for (const b of bytes) out.push(...d.feed(Buffer.from([b])));   // 一个字节一个字节地喂
    assert.equal(out.map((k) => (k.type === 'text' ? k.text : '')).join(''), '中文😀');
    const d2 = new KeyDecoder();
    assert.deepEqual(d2.feed(bytes.subarray(0, 2)), []);
    assert.deepEqual(names(d2.feed(bytes.subarray(2))), ['text:中文😀']);
});

test('单独的 ESC：flush 时算 Esc 键，后面跟普通字符也算', () => {
    const d = new KeyDecoder();
    assert.deepEqual(d.feed('\x1b'), []);
    assert.deepEqual(names(d.flush()), ['escape']);
    assert.equal(d.pending, false);
    assert.deepEqual(names(d.feed('\x1bx')), ['escape', 'text:x']);
    d.feed('\x1b[');
    assert.deepEqual(d.flush(), []);   // 半截 CSI 超时就丢
});

test('括号粘贴变成一个 paste 键，结束标记被拆开也行', () => {
    const d = new KeyDecoder();
    assert.deepEqual(d.feed('\x1b[200~第一行\r\n'), []);
    assert.equal(d.pending, false);   // 粘贴中途不会被当成 Esc
    assert.deepEqual(d.flush(), []);
    assert.deepEqual(d.feed('second\x1b[A\x1b[20'), []);
    assert.deepEqual(d.feed('1~z'), [{ type: 'paste', text: '第一行\nsecond\x1b[A' }, { type: 'text', text: 'z' }]);
});

test('不认识的序列被忽略', () => {
    const d = new KeyDecoder();
    assert.deepEqual(names(d.feed('\x1b[I\x1b[12;40R\x1b[99~\x1b[201~a')), ['text:a']);
});

test('显示宽度：中文和全角 2 列，ANSI 和组合字符 0 列', () => {
    assert.equal(displayWidth('abc'), 3);
    assert.equal(displayWidth('中文'), 4);
    assert.equal(displayWidth('ＡＢ'), 4);
    assert.equal(displayWidth('한'), 2);
    assert.equal(displayWidth('😀'), 2);
    assert.equal(displayWidth('\x1b[31mred\x1b[0m'), 3);
    assert.equal(displayWidth('e\u0301'), 1);
    assert.equal(displayWidth('a\u200bb'), 2);
    assert.equal(displayWidth('❤\ufe0f'), 1);
    assert.equal(displayWidth('〿'), 1);   // U+303F 例外
    assert.equal(displayWidth('\x1b[1;32mok\x1b[0m\x1b]0;title\x07'), 2);   // 颜色和标题序列不占列
});

test('折行按显示宽度，宽字符不跨边，优先在空格处断', () => {
    assert.deepEqual(wrapText('hello world foo', 11), ['hello world', 'foo']);
    assert.deepEqual(wrapText('hello world', 8), ['hello ', 'world']);
    assert.deepEqual(wrapText('abcdefghij', 4), ['abcd', 'efgh', 'ij']);
    assert.deepEqual(wrapText('中文中文中', 5), ['中文', '中文', '中']);
    assert.deepEqual(wrapText('a中文', 2), ['a', '中', '文']);
    assert.deepEqual(wrapText('a\n\nb', 10), ['a', '', 'b']);
    assert.deepEqual(wrapText('', 10), ['']);
    for (const row of wrapText('中文混排 mixed text 的一段话，足够长才会折成好几行。', 7)) {
        assert.ok(displayWidth(row) <= 7, row);
    }
});

test('折行不切开 ANSI 序列和代理对', () => {
    const rows = wrapText('\x1b[31mabcdef\x1b[0m😀😀', 3);
    assert.deepEqual(rows, ['\x1b[31mabc', 'def\x1b[0m', '😀', '😀']);
    assert.equal(rows.join(''), '\x1b[31mabcdef\x1b[0m😀😀');
});

test('增量折行：只重折“最后一行 + 新文字”与整段重折结果相同', () => {
    // 按完整单位（码点或整个 ANSI 序列）逐个追加，模拟流式输出
    const pieces = [
        ...Array.from('The quick brown fox 跳过了懒狗。\nSecond  paragraph with some_long_identifier_here and 中文，'),
        '\x1b[33m', ...Array.from('黄色'), '\x1b[0m', ...Array.from(' 😀 end. '),
    ];
    for (let width = 2; width <= 16; width++) {
        let text = '';
        let rows = [''];
        for (const piece of pieces) {
            text += piece;
            rows = [...rows.slice(0, -1), ...wrapText(rows[rows.length - 1] + piece, width)];
            assert.deepEqual(rows, wrapText(text, width), `width=${width} text=${text}`);
        }
    }
});

test('截断与补齐', () => {
    assert.equal(truncateToWidth('hello', 10), 'hello');
    assert.equal(truncateToWidth('hello world', 5), 'hello');
    assert.equal(truncateToWidth('中文中文', 5), '中文');
    assert.equal(truncateToWidth('ab中文', 3), 'ab');   // 放不下的宽字符整个不要
    assert.equal(truncateToWidth('\x1b[32mgreen text\x1b[0m', 5), '\x1b[32mgreen\x1b[0m');
    assert.equal(padToWidth('中', 4), '中  ');
    assert.equal(displayWidth(padToWidth('中文中文', 5)), 5);
});
