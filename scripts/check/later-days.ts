// 第 9–15 天的检查共用的小工具：按请求内容回答的脚本模型、从请求里取东西、同一次运行给几个检查共用、第二次运行接着用第一次的文件夹。
import { text } from '../../test/helpers/agent.js';
import type { FakeReply } from '../../test/helpers/fake-openai.js';
import { runLearner, type LearnerOptions, type LearnerRun } from './harness.js';

export type Rule = FakeReply | ((body: any) => FakeReply);

/** 这次检查独有的标记：出现在哪里，就说明是从哪里来的。 */
export const mark = (prefix: string): string => `${prefix}${Math.random().toString(36).slice(2, 8)}`;

export const messagesOf = (body: any): any[] => (Array.isArray(body?.messages) ? body.messages : []);
export const contentOf = (m: any): string => (typeof m?.content === 'string' ? m.content : m?.content == null ? '' : JSON.stringify(m.content));
export const systemText = (body: any): string => messagesOf(body).filter((m) => m.role === 'system').map(contentOf).join('\n');
export const toolNames = (body: any): string[] => (Array.isArray(body?.tools) ? body.tools.map((t: any) => t?.function?.name) : []);
export const toolSchema = (body: any, name: string): any => body?.tools?.find((t: any) => t?.function?.name === name)?.function;

/**
 * 按最后一条消息决定回复，从不看这是第几个请求（学习者的 Agent 多问一句、少问一句都不乱）：
 * 最后一条是用户消息、含有 rules 里的某个键，就照那条回；其余（工具结果回来了、多出来的 y……）回一句短文字。
 */
export function byLastUser(rules: Record<string, Rule>, otherwise = '好的'): (body: any) => FakeReply {
    return (body) => {
        const last = messagesOf(body).at(-1);
        if (last?.role === 'user') {
            const said = contentOf(last);
            for (const [key, rule] of Object.entries(rules)) {
                if (said.includes(key)) return typeof rule === 'function' ? rule(body) : rule;
            }
        }
        return text(otherwise);
    };
}

/** 最后一条用户消息含有 key 的第一个请求（这一轮开头的那个）。 */
export const requestFor = (run: LearnerRun, key: string): any | undefined =>
    run.requests.find((body) => {
        const last = messagesOf(body).at(-1);
        return last?.role === 'user' && contentOf(last).includes(key);
    });

/** 某次工具调用的结果（任何请求里 tool_call_id 对得上的 tool 消息），没有就是 undefined。 */
export function toolResult(run: LearnerRun, callId: string): string | undefined {
    for (const body of run.requests) {
        const m = messagesOf(body).find((x) => x.role === 'tool' && x.tool_call_id === callId);
        if (m) return contentOf(m);
    }
    return undefined;
}

/** 几个检查共用同一次运行：同一个入口、同一个键只跑一次。 */
const shared = new Map<string, Promise<any>>();
export function once<T>(entry: string, key: string, run: () => Promise<T>): Promise<T> {
    const id = `${entry}\n${key}`;
    if (!shared.has(id)) shared.set(id, run());
    return shared.get(id)!;
}

/** 先跑 first，再在同一个工作目录、同一个主目录里跑 second（它留下的长期记忆、知识库还在）。 */
export async function twoRuns(entry: string, first: LearnerOptions, second: LearnerOptions): Promise<[LearnerRun, LearnerRun]> {
    const a = await runLearner(entry, first);
    const b = await runLearner(entry, { ...second, dir: a.dir, home: a.home });
    return [a, b];
}

/** 给 Miss 的「实际」：一个请求里的消息，一条一行，角色在前。系统提示留头尾：后加的几节（AGENTS.md、技能、召回）在末尾。 */
export function showMessages(body: any): string {
    if (!body) return '（没有这个请求）';
    return messagesOf(body).map((m) => {
        const calls = Array.isArray(m.tool_calls) ? ` 调用 ${m.tool_calls.map((c: any) => c?.function?.name).join('、')}` : '';
        const said = contentOf(m).replace(/\s+/g, ' ');
        const shown = m.role === 'system' ? ends(said) : said.slice(0, 160);
        return `${m.role}${m.tool_call_id ? `(${m.tool_call_id})` : ''}：${shown}${calls}`;
    }).join('\n');
}

/** 长文字只留开头和结尾。 */
export const ends = (said: string, head = 40, tail = 120): string =>
    (said.length <= head + tail ? said : `${said.slice(0, head)}……${said.slice(-tail)}`);

/** 标记前后的一小段（长的工具结果里，只看要找的东西在不在、在哪）。 */
export function around(said: string, marker: string, n = 60): string {
    const at = said.indexOf(marker);
    return at < 0 ? ends(said.replace(/\s+/g, ' ')) : `…${said.slice(Math.max(0, at - n), at + marker.length + n).replace(/\s+/g, ' ')}…`;
}

/** 太长的几行给 Miss 看：每行截到 width 个字符，超过 max 行时留头尾、中间写省略了几行。 */
export function clipLines(lines: string[], max = 14, width = 180): string {
    const cut = lines.map((l) => (l.length > width ? `${l.slice(0, width)}…` : l));
    if (cut.length <= max) return cut.join('\n');
    return [...cut.slice(0, 4), `…（省略 ${cut.length - max} 行）`, ...cut.slice(cut.length - (max - 4))].join('\n');
}
