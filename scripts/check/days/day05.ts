// 第 5 天：历史压缩。阈值由环境变量 GEEKAGENT_MAX_HISTORY 给（每条消息 JSON 的字符数之和）。
import { call, text, tools, type FakeReply } from '../../fake-model/replies.ts';
import type { LearnerRun } from '../harness.ts';
import { contentOf, mark, messagesOf, requestFor, showMessages } from '../look.ts';
import { Miss, type Check, type Scenario } from '../types.ts';

const SECTION = 'day08/README.md#第-5-天历史压缩';
const MAX_HISTORY = '400';
const PAD = '（这半句只是为了让历史变长一些，好让它超过阈值）';
const SUMMARY = mark('SUMMARY');

interface Talk { typed: string[]; first: string; scenario: Scenario }

/**
 * 六轮对话，每一句带一个标记；withTools 时每轮先调用一次 get_current_time 再回答。
 * 最后一条是我们打的某一句 → 正常回答（withTools 时先调工具）；最后一条是工具结果 → 回答；
 * 其余的请求（最后一条 user 消息不是我们打的哪一句）就是摘要请求 → 回摘要标记。
 */
function talk(withTools: boolean): Talk {
    const tag = mark(withTools ? 'TOOLTURN' : 'TURN');
    const typed = Array.from({ length: 6 }, (_, i) => `第 ${i + 1} 句 ${tag}x${i + 1}y ${PAD}`);
    const model = () => {
        let n = 0;
        return (body: any): FakeReply => {
            const last = messagesOf(body).at(-1);
            if (last?.role === 'tool') return text('好的');
            if (last?.role === 'user' && typed.includes(contentOf(last))) {
                if (!withTools) return text('好的');
                // 每轮并行调用的个数不同（1、4、2、3…）：每轮的消息数不同，按固定条数切的做法迟早切在调用和结果之间
                const count = [1, 4, 2, 3, 1, 4][typed.indexOf(contentOf(last))];
                return tools(...Array.from({ length: count }, () => call(`call_compact_${++n}`, 'get_current_time', {})));
            }
            return text(SUMMARY);
        };
    };
    return { typed, first: `${tag}x1y`, scenario: { lines: [...typed, '/exit'], env: { GEEKAGENT_MAX_HISTORY: MAX_HISTORY }, model } };
}

const PLAIN = talk(false);
const WITH_TOOLS = talk(true);

/** 摘要请求：最后一条 user 消息不是我们打的哪一句，而其中带着第一句的标记。 */
function summaryRequest(run: LearnerRun, t: Talk): any | undefined {
    return run.requests.find((body) => {
        const last = messagesOf(body).filter((m) => m.role === 'user').at(-1);
        return last && !t.typed.includes(contentOf(last)) && JSON.stringify(body).includes(t.first);
    });
}

const asked = (run: LearnerRun) => `请求 ${run.requests.length} 个，每个的消息数：${run.requests.map((b) => messagesOf(b).length).join('、')}`;

export const checks: Check[] = [
    {
        day: 5,
        name: `历史超过 GEEKAGENT_MAX_HISTORY 时，先请模型把旧消息写成摘要`,
        hint: '每轮放进用户消息后量一下历史（每条消息 JSON.stringify 的长度相加），超过 GEEKAGENT_MAX_HISTORY 就把较早的消息发给模型、请它写摘要',
        section: SECTION,
        scenario: PLAIN.scenario,
        expect(run) {
            if (!summaryRequest(run, PLAIN)) {
                throw new Miss(`GEEKAGENT_MAX_HISTORY=${MAX_HISTORY}，聊了六句（每句约 60 个字）：其间有一个请求把第一句交给模型总结`, asked(run));
            }
        },
    },
    {
        day: 5,
        name: '压缩之后：摘要代替旧消息，最近的几条原样保留',
        hint: '在一条 user 消息前切开：切点之前的换成一条带摘要的消息（如 system），最近几条（教程里是 6 条）原样留下；之后的请求就用这份新历史',
        section: SECTION,
        scenario: PLAIN.scenario,
        expect(run) {
            const last = requestFor(run, PLAIN.typed[5]);
            const all = JSON.stringify(last ?? {});
            const users = messagesOf(last).filter((m) => m.role === 'user').map(contentOf);
            if (!last || !all.includes(SUMMARY) || all.includes(PLAIN.first) || !users.includes(PLAIN.typed[4])) {
                throw new Miss(`第六句的请求里：有模型写的摘要「${SUMMARY}」，没有第一句的原文，第五句原样还在`, last ? showMessages(last) : asked(run));
            }
        },
    },
    {
        day: 5,
        name: '压缩不拆开工具调用和它的结果',
        hint: '只在 user 消息前切：带 tool_calls 的 assistant 消息和它的 tool 结果必须留在同一边，否则之后的每个请求都会被拒绝',
        section: SECTION,
        optional: true,   // 原教程固定留最后 6 条，会把调用和结果切开；只在 user 消息前切是本仓库多做的
        scenario: WITH_TOOLS.scenario,
        expect(run) {
            const used = run.requests.some((body) => body !== summaryRequest(run, WITH_TOOLS) && JSON.stringify(body).includes(SUMMARY));
            if (run.rejected.length || !used || !requestFor(run, WITH_TOOLS.typed[5])) {
                throw new Miss('每轮并行调用 1–4 个工具、历史几次超过阈值：压缩照常发生，之后的请求都合法（假模型没有拒绝）',
                    run.rejected.length ? `假模型拒绝了请求（像真实 API 一样回 400）：${run.rejected[0]}` : `${used ? '' : '没有请求用上摘要；'}${asked(run)}`);
            }
        },
    },
];
