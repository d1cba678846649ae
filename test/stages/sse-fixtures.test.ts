// 录制的流（test/fixtures/openai-sse/），两种测法：
// - 经真实入口重放（每一课和加固版）：只看课承诺的——文字显示出来、工具调用按 index 拼好（DeepSeek 的 reasoning_content 随调用带回）、
//   中途断开或流里报错的一轮算失败、报出服务商的原话、历史回滚。不看提示文字怎么写，课换了也照样成立。Day 1 的课还没有工具，不喂工具调用的流。
// - 加固版的解码器（sse.ts）：每个录制的流整体喂入、一个字节一块、在前 256 字节的每个字节处切成两段、以及随机 1–9 字节切分，
//   结果都必须等于 expected/*.json。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { text } from '../../scripts/fake-model/replies.ts';
import { runAgent, userTexts } from '../helpers/agent.ts';
import { SSE_FIXTURES as FIXTURES, sseFixture } from '../helpers/fixtures.ts';
import { HARDENED_ONLY, REPO_ROOT as REPO, stagesFrom } from '../helpers/run-stage.ts';

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

// 经真实入口重放的流：各家服务商的文字、思考、工具调用的写法，用量的位置，长度截断，没有 [DONE]，流里的错误
const REPLAYED = [
    'deepseek-reasoning-toolcall', 'qwen-dashscope-toolcall', 'moonshot-kimi-usage-in-choice', 'ollama-style', 'whole-toolcall-one-chunk',
    'vllm-style', 'llamacpp-style', 'usage-final-chunk', 'openai-parallel-tools', 'openai-length', 'no-done', 'midstream-error',
];

for (const stage of stagesFrom('day01')) {
    const hasTools = stagesFrom('day04').includes(stage);
    describe(`${stage}: 录制的流经真实入口重放`, { concurrency: true }, () => {
        for (const name of REPLAYED.filter((n) => hasTools || expected(n).tool_calls.length === 0)) {
            test(name, async () => {
                const exp = expected(name);
                const calls: { id: string; name: string; arguments: string }[] = exp.tool_calls;
                const replies = [sseFixture(name), ...(calls.length ? [text('工具之后的回答')] : []), text('第二问的回答')];
                const r = await runAgent(stage, { input: ['第一问', '第二问'], replies });
                assert.equal(r.code, 0, r.stderr);
                const out = r.stdout + r.stderr;
                const last = r.requests.at(-1)!.body;
                assert.equal(r.requests.length, calls.length ? 3 : 2, '流开始之后不重试');
                assert.ok(out.includes('第二问的回答'), out);
                if (!exp.complete) {
                    // 流里的错误：这一轮失败，说出服务商的原话，历史回到这一轮之前
                    assert.ok(out.includes(exp.error.message), out);
                    assert.deepEqual(userTexts(last), ['第二问']);
                    assert.ok(!JSON.stringify(last.messages).includes(exp.text), '半截回答不该进历史');
                    return;
                }
                if (exp.text) assert.ok(r.stdout.includes(exp.text), r.stdout);
                if (exp.reasoning) assert.ok(r.stdout.includes(exp.reasoning.trim().split('\n')[0]), '思考也显示出来');
                assert.deepEqual(userTexts(last), ['第一问', '第二问']);
                if (!calls.length) {
                    assert.ok(last.messages.some((m: any) => m.role === 'assistant' && m.content === exp.text), '回答进了历史');
                    return;
                }
                // 工具调用按 index 拼好：id、名字、参数都和录制的一样；每个调用都有结果（假模型校验配对）
                const assistant = r.requests[1].body.messages.find((m: any) => m.tool_calls);
                assert.deepEqual(assistant.tool_calls.map((c: any) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })), calls);
                if (name.startsWith('deepseek')) assert.equal(assistant.reasoning_content, exp.reasoning, 'reasoning_content 随工具调用带回');
            });
        }

        test('连接在事件中途断开：这一轮失败、回滚，下一问照常', async () => {
            const r = await runAgent(stage, { input: ['第一问', '第二问'], replies: [{ kind: 'cut', text: '说到一半' }, text('第二问的回答')] });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(r.stdout.includes('第二问的回答'), r.stdout);
            assert.equal(r.requests.length, 2, '流开始之后不重试');
            assert.deepEqual(userTexts(r.requests[1].body), ['第二问']);
            assert.ok(!JSON.stringify(r.requests[1].body.messages).includes('说到一半'), '半截回答不该进历史');
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: SSE 解码与录制流`, async () => {
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

        for (const name of names) {
            test(name, async () => {
                const bytes = new Uint8Array(fs.readFileSync(path.join(FIXTURES, name + '.sse')));
                const exp = expected(name);
                const whole = await decode(bytes, []);
                const r = whole.result;
                assert.equal(r.text, exp.text);
                assert.equal(joined(whole.deltas, 'text'), exp.text);
                assert.equal(joined(whole.deltas, 'reasoning'), exp.reasoning);
                assert.equal(r.reasoning, exp.reasoning);
                assert.equal(r.refusal, exp.refusal);
                assert.deepEqual(r.toolCalls, exp.tool_calls);
                assert.equal(r.finishReason, exp.finish_reason);
                const u = exp.usage_normalized;
                assert.deepEqual(r.usage, u && { prompt: u.prompt_tokens, completion: u.completion_tokens, total: u.total_tokens });
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
