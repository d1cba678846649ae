// 切块、分词与 BM25 打分。期望分数都在注释里手算过一遍。
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
    STOP_WORDS, buildIndex, chunkEntry, chunkText, normalize, rank, recallTerms, searchTerms, tokenize,
} from '../../hardened/bm25.ts';

const near = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

test('切块：不超过块大小整块返回，否则按 size−overlap 的步长滑动到碰到文末', () => {
    assert.deepEqual(chunkText(''), [{ start: 0, text: '' }]);
    assert.deepEqual(chunkText('a'.repeat(320)).map((c) => c.start), [0]);
    // 321：0 起一块，240 起一块（240 + 320 ≥ 321，停）
    assert.deepEqual(chunkText('a'.repeat(321)).map((c) => [c.start, c.text.length]), [[0, 320], [240, 81]]);
    // 800：0、240、480（480 + 320 = 800 恰好到文末，停）
    assert.deepEqual(chunkText('a'.repeat(800)).map((c) => c.start), [0, 240, 480]);
    assert.deepEqual(chunkText('a'.repeat(801)).map((c) => c.start), [0, 240, 480, 720]);
    // 知识库：800 / 80 → 步长 720
    assert.deepEqual(chunkText('a'.repeat(2000), 800).map((c) => c.start), [0, 720, 1440]);
    const text = Array.from({ length: 500 }, (_, i) => String.fromCharCode(0x4e00 + i)).join('');
    for (const c of chunkText(text)) assert.equal(c.text, text.slice(c.start, c.start + 320));
    assert.deepEqual(chunkEntry('x'.repeat(400), 3).map(({ entry, index, start }) => [entry, index, start]), [[3, 0, 0], [3, 1, 240]]);
    // overlap ≥ size 也不会死循环
    assert.equal(chunkText('abcdef', 2, 5).length, 5);
});

test('停用词是规范给的完整列表', () => {
    assert.equal(STOP_WORDS.size, 30);
    for (const w of ['的', '我们', '可以', '一个', '呢']) assert.ok(STOP_WORDS.has(w));
});

test('分词：英文数字整段小写，单个汉字原样，连续汉字切二元词', () => {
    assert.equal(normalize('A  B\t\nC'), 'a b c');
    assert.deepEqual(tokenize('我们喜欢北京烤鸭 and Beijing2024!'),
        ['我们', '们喜', '喜欢', '欢北', '北京', '京烤', '烤鸭', 'and', 'beijing2024']);
    assert.deepEqual(tokenize('好 OK，的'), ['好', 'ok', '的']);
    assert.deepEqual(tokenize('snake_case-Name'), ['snake', 'case', 'name']);
    assert.deepEqual(tokenize('😀 ！'), []);
});

test('查询词：搜索按空白切、回忆按分词，都去掉停用词', () => {
    assert.deepEqual(searchTerms('  北京 的  Roast-Duck '), ['北京', 'roast-duck']);
    assert.deepEqual(recallTerms('我们的北京'), ['们的', '的北', '北京']);   // 我们 被去掉；三字以上不会产生单字“的”
    assert.deepEqual(recallTerms('我 和 你'), []);
    assert.deepEqual(searchTerms('   '), []);
});

/*
 * 手算的语料（归一化后长度）：
 *   c0 = "cat ox"        dl = 6
 *   c1 = "cat cat bird"  dl = 12
 *   c2 = "dog ox"        dl = 6
 *   N = 3，avgdl = 24 / 3 = 8
 * 长度项 K(d) = k1·(1 − b + b·dl/avgdl)：
 *   K(c0) = K(c2) = 1.2·(0.25 + 0.75·0.75) = 1.2·0.8125 = 0.975
 *   K(c1)         = 1.2·(0.25 + 0.75·1.5)  = 1.2·1.375  = 1.65
 * "cat"：df = 2 → idf = ln(1 + (3 − 2 + 0.5)/(2 + 0.5)) = ln 1.6 ≈ 0.4700036292
 *   c0: tf = 1 → ln1.6 · 1·2.2/(1 + 0.975) = ln1.6 · 2.2/1.975 ≈ 0.5235483465
 *   c1: tf = 2 → ln1.6 · 2·2.2/(2 + 1.65)  = ln1.6 · 4.4/3.65  ≈ 0.5665797174
 * "ox"：df = 2 → idf = ln 1.6；c0、c2 各 tf = 1 → 各 ≈ 0.5235483465
 * "bird"：df = 1 → idf = ln(1 + 2.5/1.5) = ln(8/3) ≈ 0.9808292530
 *   c1: tf = 1 → ln(8/3) · 2.2/(1 + 1.65) ≈ 0.8142733421
 * 查询 [cat, ox]：c0 = 0.5235483465·2 ≈ 1.0470966930，c1 ≈ 0.5665797174，c2 ≈ 0.5235483465
 */
const CORPUS = ['Cat  ox', 'cat cat BIRD', 'dog ox'];

/** 第 i 块的分数，用 buildIndex + rank 算；不在结果里（分数不大于 0）就是 0。 */
const scoreOf = (corpus: string[], i: number, terms: string[]): number =>
    rank(buildIndex(corpus), terms, corpus.length).find((h) => h.index === i)?.score ?? 0;

test('BM25：单块打分与手算一致', () => {
    near(scoreOf(CORPUS, 0, ['cat']), Math.log(1.6) * 2.2 / 1.975);
    near(scoreOf(CORPUS, 1, ['cat']), Math.log(1.6) * 4.4 / 3.65);
    near(scoreOf(CORPUS, 1, ['bird']), Math.log(8 / 3) * 2.2 / 2.65);
    near(scoreOf(CORPUS, 0, ['cat']), 0.5235483465015790);
    near(scoreOf(CORPUS, 1, ['bird']), 0.8142733421229427);
    assert.equal(scoreOf(CORPUS, 2, ['cat']), 0);
});

test('BM25：排序、只留正分、取前 k', () => {
    const index = buildIndex(CORPUS);
    assert.equal(index.avgdl, 8);
    const hits = rank(index, ['cat', 'ox'], 5);
    assert.deepEqual(hits.map((h) => h.index), [0, 1, 2]);
    near(hits[0].score, 2 * Math.log(1.6) * 2.2 / 1.975);
    near(hits[1].score, Math.log(1.6) * 4.4 / 3.65);
    near(hits[2].score, Math.log(1.6) * 2.2 / 1.975);
    assert.deepEqual(rank(index, ['cat', 'ox'], 2).map((h) => h.index), [0, 1]);
    assert.deepEqual(rank(index, ['zebra'], 5), []);
    assert.deepEqual(rank(index, [], 5), []);
    // 查询里重复的词重复计分
    near(rank(index, ['bird', 'bird'], 5)[0].score, 2 * Math.log(8 / 3) * 2.2 / 2.65);
});

test('BM25：按子串包含计 df，tf 数不重叠的出现次数', () => {
    // "at" 出现在 c0、c1 的 cat 里：df = 2，c1 里 tf = 2，结果和 "cat" 一样
    const index = buildIndex(CORPUS);
    const at = rank(index, ['at'], 5);
    assert.deepEqual(at.map((h) => h.index), [1, 0]);
    near(at[0].score, Math.log(1.6) * 4.4 / 3.65);
    /*
     * 语料 ["aaa", "b"]：N = 2，avgdl = 2；"aa" 在 "aaa" 里不重叠只算 1 次。
     *   df = 1 → idf = ln(1 + 1.5/1.5) = ln 2；K = 1.2·(0.25 + 0.75·3/2) = 1.65
     *   分数 = ln2 · 2.2/(1 + 1.65) ≈ 0.5754
     */
    near(scoreOf(['aaa', 'b'], 0, ['aa']), Math.log(2) * 2.2 / 2.65);
});

test('BM25：中文二元词与同分时保持原顺序', () => {
    const texts = ['北京烤鸭很好吃', '上海小笼包', '北京的天气'];
    const hits = rank(buildIndex(texts), recallTerms('北京'), 5);
    assert.deepEqual(hits.map((h) => h.index), [2, 0]);   // 同样 tf = 1，短的那块分高
    const same = rank(buildIndex(['x y', 'x z', 'x w']), ['x'], 5);
    assert.deepEqual(same.map((h) => h.index), [0, 1, 2]);
});
