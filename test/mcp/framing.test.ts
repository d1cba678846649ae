import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { LineFramer, LineWriter } from '../../hardened/mcp-framing.ts';

function collect(maxLine = 64 * 1024 * 1024) {
    const lines: string[] = [];
    const drops: number[] = [];
    const framer = new LineFramer((l) => lines.push(l), (n) => drops.push(n), maxLine);
    return { lines, drops, framer };
}

describe('LineFramer 行切分', () => {
    const text = '{"a":"你好，世界 🎲"}\r\n\n{"b":"émoji 😀 末尾"}\n   \n{"c":3}\n';
    const bytes = Buffer.from(text, 'utf8');
    const expected = ['{"a":"你好，世界 🎲"}', '{"b":"émoji 😀 末尾"}', '   ', '{"c":3}'];

    it('一次读入多行：CRLF 去掉 \\r，空行跳过', () => {
        const { lines, framer } = collect();
        framer.push(bytes);
        assert.deepEqual(lines, expected);
    });

    it('在每一个字节处切成两半（包括 UTF-8 多字节字符内部）结果都一样', () => {
        for (let cut = 0; cut <= bytes.length; cut++) {
            const { lines, framer } = collect();
            framer.push(bytes.subarray(0, cut));
            framer.push(bytes.subarray(cut));
            assert.deepEqual(lines, expected, `cut at ${cut}`);
        }
    });

    it('上限恰好等于最长的一行时（整块超过上限、逐行检查），每种切法结果也都一样', () => {
        const longest = Math.max(...text.split('\n').map((l) => Buffer.byteLength(l)));
        assert.ok(longest < bytes.length);
        for (let cut = 0; cut <= bytes.length; cut++) {
            const { lines, drops, framer } = collect(longest);
            framer.push(bytes.subarray(0, cut));
            framer.push(bytes.subarray(cut));
            assert.deepEqual(lines, expected, `cut at ${cut}`);
            assert.deepEqual(drops, []);
        }
    });

    it('逐字节喂入', () => {
        const { lines, framer } = collect();
        for (let i = 0; i < bytes.length; i++) framer.push(bytes.subarray(i, i + 1));
        assert.deepEqual(lines, expected);
    });

    it('\\r 恰好落在两块之间也只去掉一个', () => {
        const { lines, framer } = collect();
        framer.push(Buffer.from('abc\r\r'));
        framer.push(Buffer.from('\ndef\n'));
        assert.deepEqual(lines, ['abc\r', 'def']);
    });

    it('行中间的 \\r 不算行尾：JSON 允许把它当空白（node:readline 会在这里把消息切成两半）', () => {
        const { lines, framer } = collect();
        framer.push(Buffer.from('{"a":\r1}\n'));
        assert.deepEqual(lines, ['{"a":\r1}']);
        assert.deepEqual(JSON.parse(lines[0]), { a: 1 });
    });

    it('结尾没有换行的最后一行在 flush 时交出', () => {
        const { lines, framer } = collect();
        framer.push(Buffer.from('one\ntw'));
        framer.push(Buffer.from('o'));
        assert.deepEqual(lines, ['one']);
        framer.flush();
        assert.deepEqual(lines, ['one', 'two']);
    });

    // 4 KiB 的小块有 5000 多块：每来一块就重拼整行的实现要拷贝约 50 GB，远超时限；线性实现不到 1 秒
    it('20 MB 的一行分成 4 KiB 的块：完整交出，线性耗时', () => {
        const big = Buffer.alloc(20_000_001, 0x78);
        big[big.length - 1] = 0x0a;
        const { lines, framer } = collect();
        const t0 = performance.now();
        for (let i = 0; i < big.length; i += 4096) framer.push(big.subarray(i, i + 4096));
        const ms = performance.now() - t0;
        assert.equal(lines.length, 1);
        assert.equal(lines[0].length, 20_000_000);
        assert.ok(lines[0] === 'x'.repeat(20_000_000));
        assert.ok(ms < 5000, `took ${ms} ms`);
    });

    it('超长行被丢弃并报告字节数，之后的行照常', () => {
        const { lines, drops, framer } = collect(1000);
        framer.push(Buffer.from('short\n'));
        for (let i = 0; i < 5; i++) framer.push(Buffer.alloc(300, 0x61));
        framer.push(Buffer.from('aaaa\nnext\n'));
        assert.deepEqual(lines, ['short', 'next']);
        assert.deepEqual(drops, [1504]);
    });

    it('恰好等于上限的行照常交出：整行在一块里、跨两块都一样', () => {
        const { lines, drops, framer } = collect(10);
        framer.push(Buffer.from('0123456789\n01234'));
        framer.push(Buffer.from('56789\n'));
        assert.deepEqual(lines, ['0123456789', '0123456789']);
        assert.deepEqual(drops, []);
    });

    it('一块里就超过上限的完整行也会被丢弃', () => {
        const { lines, drops, framer } = collect(10);
        framer.push(Buffer.from('0123456789abc\nok\n'));
        assert.deepEqual(lines, ['ok']);
        assert.deepEqual(drops, [13]);
    });
});

/** 一个读得慢的对方：收下的每一块先挂着，release() 才读走；读走的字节按顺序记在 got 里。 */
function slowReader() {
    const got: Buffer[] = [];
    const waiting: Array<() => void> = [];
    const stream = new Writable({
        highWaterMark: 1024,
        write(chunk: Buffer, _encoding, done) {
            got.push(chunk);
            waiting.push(done);
        },
    });
    const release = async () => {
        while (waiting.length > 0) {
            waiting.shift()!();
            await new Promise((r) => setImmediate(r));
        }
    };
    return { stream, got, release, text: () => Buffer.concat(got).toString('utf8') };
}

describe('LineWriter 发给服务器的行', () => {
    it('对方读得慢：写不进去之后攒着，读走以后按原来的顺序写出，一条不丢，不断开', async () => {
        const reader = slowReader();
        let overflows = 0;
        const writer = new LineWriter(reader.stream, 1024 * 1024, () => overflows++);
        const lines = Array.from({ length: 3000 }, (_, i) => `{"id":${i},"text":"第 ${i} 条 ✓"}`);
        for (const line of lines.slice(0, 2000)) writer.write(line);
        await reader.release();
        for (const line of lines.slice(2000)) writer.write(line);
        await reader.release();
        assert.equal(overflows, 0);
        assert.equal(reader.text(), lines.map((l) => `${l}\n`).join(''));
        assert.ok(reader.got.length < 100, `攒着的行整块写出，不是一条一块（${reader.got.length} 块）`);
    });

    it('对方不读：积压（写缓冲里的加攒着的）超过上限就调一次 onOverflow，之后的行都不要了', () => {
        const reader = slowReader();
        let overflows = 0;
        const writer = new LineWriter(reader.stream, 64 * 1024, () => overflows++);
        const line = 'x'.repeat(99);
        for (let i = 0; i < 2000; i++) writer.write(line);   // 200 000 字节
        assert.equal(overflows, 1);
        assert.ok(reader.stream.writableLength <= 64 * 1024);
    });
});
