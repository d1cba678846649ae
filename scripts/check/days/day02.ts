// 第 2 天：工具循环，从流里拼出工具调用。
import { call, text, tools } from '../../fake-model/replies.ts';
import { assistantCalling, lastUser, mark, messagesOf, rejectedNote, requestFor, showMessages, stderrNote, toolNames, toolResult, toolSchema } from '../look.ts';
import { Miss, type Check, type Scenario } from '../types.ts';

const SECTION = 'day04/README.md#第-2-天工具循环从流里拼出工具调用';

/** 头三个检查共用一次运行：模型调用 get_current_time，拿到结果后回答一个标记。 */
const FINAL = mark('TIMEANSWER');
const TIME: Scenario = {
    lines: ['现在几点', '/exit'],
    model: { 现在几点: tools(call('call_time_1', 'get_current_time', {})) },
    otherwise: FINAL,
};

const ARGS = JSON.stringify({ timezone: 'Asia/Shanghai', note: mark('PIECES') });
const AFTER_ERROR = mark('AFTERERROR');

export const checks: Check[] = [
    {
        day: 2,
        name: '工具以 schema 交给模型：请求的 tools 里有 get_current_time',
        hint: '请求体加 tools: [{ type: "function", function: { name: "get_current_time", description, parameters: { type: "object", properties: {} } } }]',
        section: SECTION,
        scenario: TIME,
        expect(run) {
            const first = requestFor(run, '现在几点');
            const schema = toolSchema(first, 'get_current_time');
            if (!schema || first.tools.find((t: any) => t?.function?.name === 'get_current_time')?.type !== 'function' || schema.parameters?.type !== 'object') {
                throw new Miss('第一个请求的 tools 里有 { type: "function", function: { name: "get_current_time", parameters: { type: "object", … } } }',
                    `tools：${JSON.stringify(toolNames(first))}；get_current_time：${JSON.stringify(schema ?? null)}${rejectedNote(run)}`);
            }
        },
    },
    {
        day: 2,
        name: '工具循环：执行模型要的工具，带着结果再请求一次，最后的回答显示出来',
        hint: '流结束时有 tool_calls 就逐个执行、把结果放进历史，然后再发一次请求；直到模型回答文字，这一轮才结束',
        section: SECTION,
        scenario: TIME,
        expect(run) {
            const result = toolResult(run, 'call_time_1');
            if (result === undefined) throw new Miss('模型调用 get_current_time 之后，Agent 带着结果再发一个请求', `${showMessages(run.requests.at(-1))}${rejectedNote(run)}`);
            if (!run.stdout.includes(FINAL)) throw new Miss(`第二个请求的回答「${FINAL}」显示在 stdout 上`, run.stdout.slice(-400));
        },
    },
    {
        day: 2,
        name: '工具结果以 role: "tool" + tool_call_id 回给模型，前面是带 tool_calls 的 assistant 消息',
        hint: '先 push { role: "assistant", content, tool_calls: [{ id, type: "function", function: { name, arguments } }] }，再为每个调用 push { role: "tool", tool_call_id: id, content: 结果 }',
        section: SECTION,
        scenario: TIME,
        expect(run) {
            const asked = assistantCalling(run, 'call_time_1');
            if (!asked || toolResult(run, 'call_time_1') === undefined || run.rejected.length) {
                throw new Miss('下一个请求里：assistant 消息的 tool_calls 带着 id call_time_1，紧跟一条 tool 消息，tool_call_id 是 call_time_1',
                    `${showMessages(run.requests.at(-1))}${rejectedNote(run)}`);
            }
        },
    },
    {
        day: 2,
        name: '分成多块的工具调用参数被拼回完整的 JSON',
        hint: '同一个调用（按 index 找）后来的片段只带一小段 arguments：要追加到已有的字符串上（+=），不是覆盖；流结束后再 JSON.parse',
        section: SECTION,
        scenario: {
            lines: ['上海现在几点', '/exit'],
            model: { 上海现在几点: { kind: 'tools', calls: [{ id: 'call_pieces_1', name: 'get_current_time', arguments: ARGS, pieces: 6 }] } },
        },
        expect(run) {
            const sent = assistantCalling(run, 'call_pieces_1')?.tool_calls.find((c: any) => c.id === 'call_pieces_1')?.function?.arguments;
            let same = false;
            try {
                same = JSON.stringify(JSON.parse(sent)) === ARGS;
            } catch { /* 不是 JSON */ }
            if (!same) {
                throw new Miss(`参数分 6 块发来；下一个请求里这次调用的 arguments 是完整的 ${ARGS}`,
                    sent === undefined ? `${showMessages(run.requests.at(-1))}${rejectedNote(run)}` : `arguments：${JSON.stringify(sent)}`);
            }
        },
    },
    {
        day: 2,
        name: '一轮里多个工具调用都有结果，按调用的顺序',
        hint: '一次回复里的 tool_calls 按 index 分开拼，逐个执行，每个调用都 push 一条 tool 消息（tool_call_id 各自对上）',
        section: SECTION,
        scenario: {
            lines: ['北京和上海现在几点', '/exit'],
            model: { 北京和上海: tools(call('call_two_a', 'get_current_time', { city: '北京' }), call('call_two_b', 'get_current_time', { city: '上海' })) },
        },
        expect(run) {
            const body = run.requests.find((b) => messagesOf(b).some((m) => m.role === 'tool'));
            const ids = messagesOf(body).filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
            if (JSON.stringify(ids) !== JSON.stringify(['call_two_a', 'call_two_b']) || run.rejected.length) {
                throw new Miss('一次回复两个调用（call_two_a、call_two_b）：下一个请求里依次有两条 tool 消息回答它们',
                    `${showMessages(body ?? run.requests.at(-1))}${rejectedNote(run)}`);
            }
        },
    },
    {
        day: 2,
        name: '未知工具、坏参数不让这一轮失败：原因作为工具结果交给模型',
        hint: '执行工具时永不抛出：找不到工具、参数不是 JSON，都返回一句说明作为这次调用的 tool 消息，然后照常再请求',
        section: SECTION,
        scenario: {
            lines: ['查一下天气', '/exit'],
            model: { 查一下天气: tools(call('call_bad_1', 'no_such_tool', { city: '北京' }), call('call_bad_2', 'get_current_time', '{"oops')) },
            otherwise: AFTER_ERROR,
        },
        expect(run) {
            if (toolResult(run, 'call_bad_1') === undefined || toolResult(run, 'call_bad_2') === undefined || !run.stdout.includes(AFTER_ERROR)) {
                throw new Miss(`调用了不存在的工具 no_such_tool、参数坏掉的 get_current_time：两条 tool 消息照样回给模型，随后的回答「${AFTER_ERROR}」显示出来`,
                    `${showMessages(run.requests.at(-1))}${rejectedNote(run)}${stderrNote(run)}`);
            }
        },
    },
    {
        day: 2,
        name: '工具循环有上限：模型一直要调用工具时停下，下一轮照常',
        hint: '一条用户消息最多请求 N 次（教程里是 5）；到了上限就停，并存一条 assistant 消息，让历史仍然以回答结尾',
        section: SECTION,
        scenario: {
            lines: ['一直调用工具', '下一句', '/exit'],
            model: () => {
                let n = 0;
                return (body) => (lastUser(body) === '一直调用工具' && n < 60 ? tools(call(`call_loop_${++n}`, 'get_current_time', {})) : text('好的'));
            },
        },
        expect(run) {
            const n = run.requests.filter((body) => lastUser(body) === '一直调用工具').length;
            const next = requestFor(run, '下一句');
            if (n > 60 || !next || run.rejected.length) {
                throw new Miss('模型每次都回工具调用时，这一轮请求不超过几十次就停下；之后「下一句」的请求合法（假模型不拒绝）',
                    `这一轮请求了 ${n} 次${n > 60 ? '（60 次后假模型才改回文字）' : ''}；「下一句」${next ? '有请求' : '没有请求'}${rejectedNote(run)}`);
            }
        },
    },
];
