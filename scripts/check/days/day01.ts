// 第 1 天：REPL 与流式多轮对话。
import { text, type FakeReply } from '../../fake-model/replies.ts';
import { clip, contentOf, lastUser, mark, messagesOf, requestFor, showMessages, stderrNote } from '../look.ts';
import { Miss, type Check, type Scenario } from '../types.ts';

const SECTION = 'day01/README.md#第-1-天repl-与流式多轮对话';

/** 请求是否合格：发到 /chat/completions、stream: true、假模型没有拒绝。 */
export function streamProblem(run: { requests: any[]; rejected: string[] }): string | null {
    if (run.requests.length === 0) return '模型一个请求也没收到';
    if (run.rejected.length) return `假模型拒绝了请求（像真实 API 一样回 400）：${run.rejected[0]}`;
    const plain = run.requests.find((body) => body?.stream !== true);
    return plain ? `请求体里 stream 是 ${JSON.stringify(plain.stream)}：${clip(JSON.stringify(plain), 300)}` : null;
}

const ANSWER = mark('ANSWER');
const TWO_TURNS: Scenario = { lines: ['第一问', '第二问', '/exit'], model: { 第一问: text(ANSWER) }, otherwise: '第二个回答' };
const FAILING: FakeReply = { kind: 'http', status: 400, body: '{"error":{"message":"测试用的错误","type":"invalid_request_error"}}' };
const EXIT: Scenario = { lines: ['你好', '/exit', '不该发出去的一行'], timeoutMs: 15_000 };
const AHEAD = mark('AHEAD');

export const checks: Check[] = [
    {
        day: 1,
        name: '请求发到 ${OPENAI_BASE_URL}/chat/completions，带 model、messages 和 stream: true',
        hint: '用 fetch POST 到 `${OPENAI_BASE_URL}/chat/completions`，头里带 Authorization: Bearer ${OPENAI_API_KEY}，请求体 { model: OPENAI_MODEL, messages, stream: true }',
        section: SECTION,
        scenario: EXIT,
        expect(run) {
            const problem = streamProblem(run);
            if (problem) throw new Miss('一个合格的流式请求：POST /v1/chat/completions，stream: true', `${problem}${stderrNote(run)}`);
            const user = messagesOf(run.requests[0]).find((m) => m.role === 'user');
            if (contentOf(user) !== '你好') throw new Miss('第一条 user 消息是输入的那一行「你好」', showMessages(run.requests[0]));
        },
    },
    {
        day: 1,
        name: '流式输出：回复边到边显示（不等整段回复结束）',
        hint: '每收到一个 delta.content 就 process.stdout.write 出来（不要 console.log，它每块加一个换行）；别把整段攒到流结束再打印',
        section: SECTION,
        async run(ctx) {
            const head = mark('STREAMHEAD');
            let output = '';
            let shown = false;
            let release!: () => void;
            const held = new Promise<void>((resolve) => { release = resolve; });
            let late = false;   // 前半段一直不出现：8 秒后照样发完，让 Agent 结束；之后才出现的不算边到边
            const timer = setTimeout(() => { late = true; release(); }, 8000);
            const reply: FakeReply = { kind: 'text', text: `${head}，后半段`, chunkSize: 3, hold: held };
            const run = await ctx.learner({
                lines: ['讲一句话', '/exit'],
                model: () => reply,
                onOutput: (stdout) => {
                    output = stdout;
                    if (!shown && !late && stdout.includes(head)) {
                        shown = true;
                        clearTimeout(timer);
                        release();
                    }
                },
            });
            clearTimeout(timer);
            if (!shown) {
                const later = run.stdout.includes(head);
                throw new Miss(
                    `回复的前半段「${head}」（分成 3 个字一块发来）在流还没结束时就完整地出现在 stdout 上`,
                    later ? '前半段发出后等了 8 秒还没显示，流结束之后才出现' : `stdout 里一直没有连续的「${head}」：${clip(output || run.stdout, 400)}`,
                );
            }
        },
    },
    {
        day: 1,
        name: '多轮对话：第二轮请求带着第一轮的问答',
        hint: '用户的话和模型的完整回答都要 push 进 history，每轮把整个 history 作为 messages 发出去',
        section: SECTION,
        scenario: TWO_TURNS,
        expect(run) {
            const second = requestFor(run, '第二问');
            const turns = messagesOf(second).filter((m) => m.role !== 'system').map((m) => `${m.role}:${contentOf(m)}`);
            const want = ['user:第一问', `assistant:${ANSWER}`, 'user:第二问'];
            if (JSON.stringify(turns) !== JSON.stringify(want)) {
                throw new Miss(`第二问的请求 messages 依次是：user「第一问」、assistant「${ANSWER}」、user「第二问」`, second ? showMessages(second) : `没有第二问的请求（共 ${run.requests.length} 个请求）`);
            }
        },
    },
    {
        day: 1,
        name: '请求失败的一轮整轮撤掉：Agent 不退出，下一轮的请求里没有失败的那一问',
        hint: '一轮开始时记下 history.length，请求出错（HTTP 错误、断流）时截回去（try/finally），打印错误后接着读下一行',
        section: SECTION,
        scenario: {
            lines: ['这一问会失败', '再问一次', '/exit'],
            model: () => (body) => (lastUser(body) === '这一问会失败' ? FAILING : text('好的')),
        },
        expect(run) {
            const next = requestFor(run, '再问一次');
            if (!next) throw new Miss('第一问失败后，Agent 继续处理下一行「再问一次」', `没有「再问一次」的请求；退出码 ${run.code}${stderrNote(run)}`);
            const left = messagesOf(next).filter((m) => m.role !== 'system').map(contentOf);
            if (left.some((c) => c.includes('这一问会失败'))) throw new Miss('「再问一次」的请求里没有失败的那一问', showMessages(next));
        },
    },
    {
        day: 1,
        name: '/exit 退出：后面的行不再处理，退出码 0',
        hint: '主循环读到 /exit 就跳出循环、正常退出（退出码 0）；/exit 本身不发给模型',
        section: SECTION,
        scenario: EXIT,
        expect(run) {
            const sent = run.requests.flatMap((body) => messagesOf(body).map(contentOf));
            if (run.timedOut || run.code !== 0 || !sent.includes('你好') || sent.some((c) => c.includes('不该发出去') || c === '/exit')) {
                throw new Miss('「你好」照常发给模型；读到 /exit 就以退出码 0 结束，/exit 和它后面的行都没发给模型',
                    `${run.timedOut ? '15 秒还没退出' : `退出码 ${run.code}`}；模型收到的消息：${JSON.stringify(sent)}${stderrNote(run)}`);
            }
        },
    },
    {
        day: 1,
        name: '输入结束（EOF，Ctrl+D）时正常退出，退出码 0',
        hint: 'readline 的 for await 在 stdin 结束时自然结束：循环之后正常退出，不要挂着等输入',
        section: SECTION,
        scenario: { lines: ['你好'], timeoutMs: 15_000 },
        expect(run) {
            if (run.timedOut || run.code !== 0 || !requestFor(run, '你好')) {
                throw new Miss('处理完最后一行「你好」、读到输入结束后以退出码 0 结束',
                    `${run.timedOut ? '15 秒还没退出' : `退出码 ${run.code}`}；请求 ${run.requests.length} 个${stderrNote(run)}`);
            }
        },
    },
    {
        day: 1,
        name: '忙时提前打的行不丢：上一轮还在回答时打的下一行，这一轮结束后照样处理',
        hint: '读行和处理分开：读到的行先放进队列，一轮结束再从队列取下一行（不要用 busy 标记把忙时来的行丢掉）',
        section: SECTION,
        optional: true,   // 原教程忙时来的行直接丢掉（busy 标记）；排队留着是本仓库多做的
        scenario: { lines: ['第一问', { ahead: AHEAD }, '/exit'] },
        expect(run) {
            if (!requestFor(run, AHEAD)) {
                throw new Miss(`「第一问」的回答还在流的时候打了「${AHEAD}」：这一轮结束后它照样发给了模型`, `没有「${AHEAD}」的请求（共 ${run.requests.length} 个请求）${stderrNote(run)}`);
            }
        },
    },
];
