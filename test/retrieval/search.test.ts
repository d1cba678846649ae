// 代码搜索：在临时目录里造一棵树，覆盖跳过规则、大小写、排序和 50 条上限。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { MAX_HITS, findMatches, searchFiles } from '../../hardened/search.ts';
import { workdir } from '../helpers/workdir.ts';

let root = '';

function put(rel: string, content: string | Buffer): void {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
}

before(() => {
    root = workdir();
    put('a.txt', 'Hello World\nfoo\nHELLO again  \n');
    put('a/x.txt', 'say hello\n');                          // "a.txt" < "a/x.txt"（'.' 排在 '/' 前）
    put('src/b.ts', "const x = 'hello';\r\nlet y;\r\n");
    put('src/deep/c.md', 'nothing\n中文 Hello 世界\nÄpfel und Birnen\n');
    put('bin.dat', Buffer.concat([Buffer.from('hello\n'), Buffer.from([0]), Buffer.from('hello\n')]));
    put('big.txt', 'hello\n' + 'x'.repeat(1024 * 1024));      // 超过 1 MiB
    put('.hidden/h.txt', 'hello\n');
    put('node_modules/pkg/i.js', 'hello\n');
    put('src/.git/config', 'hello\n');
    put('src/node_modules/z.js', 'hello\n');
    put('many/lines.txt', Array.from({ length: 60 }, (_, i) => `hit ${i + 1} NEEDLE`).join('\n'));
    put('exact/fifty.txt', Array.from({ length: 50 }, () => 'fifty-marker').join('\n'));
    fs.symlinkSync(path.join(root, 'src'), path.join(root, 'linked'));          // 指向目录的链接不跟
    fs.symlinkSync(path.join(root, 'a.txt'), path.join(root, 'link.txt'));      // 指向文件的链接也不跟
});

test('不区分大小写；跳过二进制、大文件、点目录、node_modules、符号链接；按路径排序', () => {
    assert.equal(searchFiles(root, '', 'hello'), [
        '匹配 "hello" 共 5 行：',
        'a.txt:1: Hello World',
        'a.txt:3: HELLO again',
        'a/x.txt:1: say hello',
        "src/b.ts:1: const x = 'hello';",
        'src/deep/c.md:2: 中文 Hello 世界',
    ].join('\n'));
});

test('关键词本身的大小写不影响结果；中文、非 ASCII 字母也能搜', () => {
    assert.deepEqual(findMatches(root, '', 'HeLLo').hits.length, 5);
    assert.deepEqual(findMatches(root, '', '世界').hits, ['src/deep/c.md:2: 中文 Hello 世界']);
    assert.deepEqual(findMatches(root, '', 'äPFEL').hits, ['src/deep/c.md:3: Äpfel und Birnen']);
    assert.deepEqual(findMatches(root, '', "x = 'HELLO'").hits, ["src/b.ts:1: const x = 'hello';"]);
});

test('限定子目录：路径仍相对根目录；没有结果时注明目录', () => {
    assert.deepEqual(findMatches(root, 'src', 'hello').hits, ["src/b.ts:1: const x = 'hello';", 'src/deep/c.md:2: 中文 Hello 世界']);
    assert.deepEqual(findMatches(root, path.join(root, 'src/deep'), 'hello').hits, ['src/deep/c.md:2: 中文 Hello 世界']);
    assert.equal(searchFiles(root, 'src', 'nothing-here'), '没有找到 "nothing-here" 的匹配（在 src 下）。含密钥的文件不搜，要看用 read（密钥会脱敏）');
    assert.equal(searchFiles(root, '', 'nothing-here'), '没有找到 "nothing-here" 的匹配。含密钥的文件不搜，要看用 read（密钥会脱敏）');
    // 明确指定的点目录照样搜；指定单个文件也行
    assert.deepEqual(findMatches(root, '.hidden', 'hello').hits, ['.hidden/h.txt:1: hello']);
    assert.deepEqual(findMatches(root, 'a.txt', 'again').hits, ['a.txt:3: HELLO again']);
});

test('最多 50 行，还有更多时给出提示；恰好 50 行不提示', () => {
    const out = searchFiles(root, '', 'needle').split('\n');
    assert.equal(out[0], `匹配 "needle" 共 ${MAX_HITS} 行：`);
    assert.equal(out[1], 'many/lines.txt:1: hit 1 NEEDLE');
    assert.equal(out[MAX_HITS], 'many/lines.txt:50: hit 50 NEEDLE');
    assert.match(out[MAX_HITS + 1], /已达上限 50 行/);
    assert.equal(out.length, MAX_HITS + 2);
    const exact = findMatches(root, '', 'FIFTY-MARKER');
    assert.equal(exact.hits.length, 50);
    assert.equal(exact.more, false);
});

test('缺少参数与出错', () => {
    assert.equal(searchFiles(root, '', ''), '缺少参数：pattern');
    assert.match(searchFiles(root, 'no-such-dir', 'x'), /^搜索失败：.*ENOENT/);
    assert.equal(searchFiles(root, '', 'a\nb'), '没有找到 "a\nb" 的匹配。含密钥的文件不搜，要看用 read（密钥会脱敏）');
});

test('行号：只在命中行之前数换行，同一行多次命中只报一次', () => {
    put('lines/n.txt', 'x\n\n\nab ab AB\n\nlast ab');
    assert.deepEqual(findMatches(root, 'lines', 'ab').hits, ['lines/n.txt:4: ab ab AB', 'lines/n.txt:6: last ab']);
});

test('含密钥的文件（脱敏会改动的）整个不搜：猜对的前缀和猜错的一样没有命中，别的文件照搜', () => {
    put('conf/app.env', 'DB_HOST=db.internal\nDB_PASSWORD=Hq7zLw2Rt9\n');
    put('conf/notes.txt', 'DB_PASSWORD 从 app.env 里读\n');
    assert.deepEqual(findMatches(root, 'conf', 'DB_PASSWORD=Hq7').hits, []);
    assert.deepEqual(findMatches(root, 'conf/app.env', 'DB_HOST').hits, [], '整个文件都不搜，不只是密钥那一行');
    assert.deepEqual(findMatches(root, 'conf', 'db_password').hits, ['conf/notes.txt:1: DB_PASSWORD 从 app.env 里读']);
});
