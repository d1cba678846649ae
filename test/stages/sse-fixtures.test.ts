// 每个录制的流整体喂入、一个字节一块、在前 256 字节的每个字节处切成两段、以及随机 1–9 字节切分，结果都必须等于 expected/*.json。
// day01 只解码没有工具调用的流；工具调用的累加从 day04 起测，用量从 day08 起测。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { SSE_FIXTURES as FIXTURES } from '../helpers/fixtures.ts';
import { REPO_ROOT as REPO, stagesFrom } from '../helpers/run-stage.ts';

const names = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.sse')).map((f) => f.slice(0, -4));
const expected = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, 'expected', name + '.json'), 'utf8')).expected;

function chunksOf(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
    const out: Uint8Array[] = [];
    let prev = 0;
    for (const c of [...cuts, bytes.length]) {
        if (c > prev) out.push(bytes.subarray(prev, c));
        prev = c;
    }
    return out;
}

/** 按切分喂入；drained 记录读取方是否把整个 body 读到了底（读到 [DONE] 或出错就该提前停下）。 */
function feed(bytes: Uint8Array, cuts: number[]) {
    const state = { drained: false };
    async function* body(): AsyncGenerator<Uint8Array> {
        yield* chunksOf(bytes, cuts);
        state.drained = true;
    }
    return { body: body(), state };
}

function randomCuts(len: number, seed: number): number[] {
    const cuts: number[] = [];
    let x = seed;
    for (let at = 0; at < len;) {
        x = (x * 1103515245 + 12345) % 2147483648;
        at += 1 + (x % 9);
        cuts.push(at);
    }
    return cuts;
}

// sse.ts 在各阶段通常逐字节相同：按内容分组，每个不同的版本只测一次（逐字节切分很耗时）
const groups = new Map<string, string[]>();
for (const stage of stagesFrom('day01')) {
    const text = fs.readFileSync(path.join(REPO, stage, 'sse.ts'), 'utf8');
    groups.set(text, [...(groups.get(text) ?? []), stage]);
}

for (const [, stages] of groups) {
    const stage = stages[0];
    const hasTools = stagesFrom('day04').includes(stage);
    const hasUsage = stagesFrom('day08').includes(stage);
    describe(`${stages.join(', ')}: SSE 解码与录制流`, async () => {
        const sse = await import(path.join(REPO, stage, 'sse.ts'));

        async function decode(bytes: Uint8Array, cuts: number[]) {
            const { body, state } = feed(bytes, cuts);
            const deltas: string[] = [];
            const stream = sse.readChatStream(body);
            let step = await stream.next();
            for (; !step.done; step = await stream.next()) {
                const ev = step.value;
                // 增量怎么分批取决于读取的切分，只比较按类型合并后的顺序与内容
                if (deltas.length && deltas[deltas.length - 1].startsWith(ev.type + ':')) deltas[deltas.length - 1] += ev.text;
                else deltas.push(ev.type + ':' + ev.text);
            }
            const result = step.value;
            const endedBy = result.error !== null ? 'error' : state.drained ? 'eof' : 'done';
            return { result, endedBy, deltas, framing: await framing(bytes, cuts) };
        }

        /** 分帧的统计：派发的事件数（sseEvents 读到底），以及切出来的注释行。 */
        async function framing(bytes: Uint8Array, cuts: number[]) {
            let dispatched = 0;
            for await (const events of sse.sseEvents(feed(bytes, cuts).body)) dispatched += events.length;
            const splitter = new sse.LineSplitter();
            const decoder = new TextDecoder();
            const comments: string[] = [];
            for (const piece of chunksOf(bytes, cuts)) {
                for (const line of splitter.push(decoder.decode(piece, { stream: true }))) {
                    if (line.startsWith(':')) comments.push(line.slice(1).trim());
                }
            }
            return { comments, dispatched };
        }

        const joined = (deltas: string[], type: string) =>
            deltas.filter((d) => d.startsWith(type + ':')).map((d) => d.slice(type.length + 1)).join('');

        for (const name of names.filter((n) => hasTools || expected(n).tool_calls.length === 0)) {
            test(name, async () => {
                const bytes = new Uint8Array(fs.readFileSync(path.join(FIXTURES, name + '.sse')));
                const exp = expected(name);
                const whole = await decode(bytes, []);
                const r = whole.result;
                assert.equal(r.text, exp.text);
                assert.equal(joined(whole.deltas, 'text'), exp.text);
                assert.equal(joined(whole.deltas, 'reasoning'), exp.reasoning);
                if (hasTools) assert.equal(r.reasoning, exp.reasoning);
                assert.equal(r.refusal, exp.refusal);
                if (hasTools) assert.deepEqual(r.toolCalls, exp.tool_calls);
                assert.equal(r.finishReason, exp.finish_reason);
                const u = exp.usage_normalized;
                if (hasUsage) assert.deepEqual(r.usage, u && { prompt: u.prompt_tokens, completion: u.completion_tokens, total: u.total_tokens });
                assert.equal(whole.endedBy, exp.ended_by);
                assert.equal(r.error, exp.error?.message ?? null);
                assert.equal(r.complete, exp.complete);
                assert.deepEqual(whole.framing.comments, exp.sse.comments);
                assert.equal(whole.framing.dispatched, exp.sse.dispatched_events);
                const reference = JSON.stringify(whole);
                // 一个字节一块：每个字节边界都切到了，只解码一遍
                const everyByte = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
                assert.equal(JSON.stringify(await decode(bytes, everyByte)), reference, '一个字节一块');
                // 只切一刀（第二块开头接着半行、半个字符）：前 256 字节每个字节都试。
                // 每个位置都试一刀是平方级的：17 KB 的录制流要 12 s，而一个字节一块已经切到了每个边界
                for (let cut = 1; cut < Math.min(bytes.length, 256); cut++) {
                    assert.equal(JSON.stringify(await decode(bytes, [cut])), reference, `切在第 ${cut} 字节`);
                }
                // 随机切成 1–9 字节的块：几个种子就够（每个边界上面已经切到，这里看块大小混着来）
                for (let seed = 1; seed <= 4; seed++) {
                    assert.equal(JSON.stringify(await decode(bytes, randomCuts(bytes.length, seed))), reference, `随机切分 seed=${seed}`);
                }
            });
        }

        test('CR 结尾的块之后来了一个空块（例如只有半个多字节字符）：下一块开头的 LF 仍属于同一个行尾', () => {
            const splitter = new sse.LineSplitter();
            assert.deepEqual(splitter.push('data: a\r'), ['data: a']);
            assert.deepEqual(splitter.push(''), []);
            assert.deepEqual(splitter.push('\n\r\n'), ['']);
        });

        test('中文和 emoji 在 UTF-8 字符内部被切开也不乱码', async () => {
            const pieces = ['你好，', '世界🌍', '！这是一段', '包含 emoji 😀 的文字'];
            let body = '';
            for (const p of pieces) body += `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: p } }] })}\r\n\r\n`;
            body += 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
            const bytes = new TextEncoder().encode('\uFEFF' + body);
            for (let cut = 1; cut < bytes.length; cut++) {
                const { result } = await decode(bytes, [cut]);
                assert.equal(result.text, pieces.join(''));
                assert.equal(result.complete, true);
            }
            for (let seed = 1; seed <= 30; seed++) {
                assert.equal((await decode(bytes, randomCuts(bytes.length, seed))).result.text, pieces.join(''));
            }
        });

        test('流在事件中途断开：未结束的事件被丢弃，结果不完整', async () => {
            const body = 'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}';
            const { result, endedBy } = await decode(new TextEncoder().encode(body), []);
            assert.equal(result.text, 'hi');
            assert.equal(result.complete, false);
            assert.equal(endedBy, 'eof');
        });

        test('无效 JSON 帧结束流并报错', async () => {
            const { result, endedBy } = await decode(new TextEncoder().encode('data: {oops\n\n'), []);
            assert.equal(endedBy, 'error');
            assert.match(result.error, /\{oops/);
        });
    });
}
