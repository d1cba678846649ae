// 从一次运行里取东西：请求里的消息、工具结果、系统提示；以及把它们摆给学习者看（Miss 的「实际」）。
import type { LearnerRun } from './harness.ts';

/** 这次检查独有的标记：出现在哪里，就说明是从哪里来的。 */
export const mark = (prefix: string): string => `${prefix}${Math.random().toString(36).slice(2, 8)}`;

export const messagesOf = (body: any): any[] => (Array.isArray(body?.messages) ? body.messages : []);
export const contentOf = (m: any): string => (typeof m?.content === 'string' ? m.content : m?.content == null ? '' : JSON.stringify(m.content));
export const systemText = (body: any): string => messagesOf(body).filter((m) => m.role === 'system').map(contentOf).join('\n');
export const toolNames = (body: any): string[] => (Array.isArray(body?.tools) ? body.tools.map((t: any) => t?.function?.name) : []);
export const toolSchema = (body: any, name: string): any => body?.tools?.find((t: any) => t?.function?.name === name)?.function;

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

/** 带 tool_calls 的 assistant 消息（在任何一个请求里），按调用 id 找。 */
export function assistantCalling(run: LearnerRun, id: string): any | undefined {
    for (const body of run.requests) {
        const m = messagesOf(body).find((x) => x.role === 'assistant' && Array.isArray(x.tool_calls) && x.tool_calls.some((c: any) => c?.id === id));
        if (m) return m;
    }
    return undefined;
}

/** 最后一条 user 消息的文字（按内容决定回复时用）。 */
export function lastUser(body: any): string | undefined {
    const last = messagesOf(body).filter((m) => m?.role === 'user').at(-1);
    return last ? contentOf(last) : undefined;
}

/** 截短给 Miss 的 actual：超过 n 个字符时留头尾。 */
export function clip(value: string, n = 600): string {
    const chars = Array.from(value);
    if (chars.length <= n) return value;
    const head = Math.floor(n * 0.6);
    return `${chars.slice(0, head).join('')}\n…（省略 ${chars.length - n} 个字符）…\n${chars.slice(chars.length - (n - head)).join('')}`;
}

/** 出错信息在哪里：管道里是 stderr；伪终端里 stderr 和界面写在同一个终端上，只能看整个终端的文字。 */
export const errorOutput = (run: LearnerRun): { label: string; text: string } =>
    (run.terminal ? { label: '终端上', text: run.stdout } : { label: 'stderr', text: run.stderr });

/** 给 Miss 的 actual 附上 stderr 的开头（学习者的 Agent 出错退出时，原因多半在这里）；没有就是空的。伪终端里是终端上的最后一段。 */
export function stderrNote(run: LearnerRun): string {
    const { label, text } = errorOutput(run);
    if (!text.trim()) return '';
    return `\n${label}：${run.terminal ? Array.from(text.trim()).slice(-300).join('') : clip(text.trim(), 300)}`;
}

/** 假模型拒绝过请求时附上第一条原因（它像真实 API 一样回 400）。 */
export const rejectedNote = (run: LearnerRun): string => (run.rejected.length ? `\n假模型拒绝了请求（像真实 API 一样回 400）：${run.rejected[0]}` : '');

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
