// 第 9 天：TODO 规划和子 Agent。
import { call, text, tools } from '../../fake-model/replies.ts';
import type { LearnerRun } from '../harness.ts';
import { contentOf, mark, messagesOf, requestFor, showMessages, toolNames, toolResult, toolSchema } from '../look.ts';
import { Miss, type Check, type Scenario } from '../types.ts';

const SECTION = 'day11/README.md#第-9-天todo-规划和子-agent';
const PLAIN = '你好，今天是星期几';
const PLAN = '列个 TODO：先看 a.txt，然后总结';
const TODOS = { todos: [{ content: '看 a.txt', status: 'in_progress' }, { content: '总结', status: 'pending' }] };

// 一次运行给前两个检查用：先一句不要计划的话，再一句要 TODO 的话
const PLANNING: Scenario = {
    lines: [PLAIN, PLAN, '/exit'],
    files: { 'a.txt': '第一行\n' },
    model: { TODO: tools(call('call_todo_1', 'todo_write', TODOS)) },
};

const forced = (body: any): string | undefined => {
    const choice = body?.tool_choice;
    return typeof choice === 'object' && choice ? choice.function?.name : undefined;
};

// 子 Agent：主对话里先说一句带暗号的话，再让模型委派；子 Agent 的请求按任务里的问题认出来
const HIST = mark('HIST');
const ASK = mark('QUESTION');
const ANSWER = mark('SUBRESULT');
const DELEGATING: Scenario = {
    lines: [`暗号是 ${HIST}，先记着`, '这件事交给子 Agent 去算', '/exit'],
    model: {
        [ASK]: text(ANSWER),
        '交给子 Agent': tools(call('call_delegate_1', 'delegate_task', { task: `${ASK}：1 + 1 等于几？只回答数字。` })),
    },
};

const subRequest = (run: LearnerRun) => requestFor(run, ASK);

export const checks: Check[] = [
    {
        day: 9,
        name: 'todo_write：模型交一整张 TODO 清单，工具结果回到对话里',
        hint: '注册一个名为 todo_write 的工具，参数 todos 是数组（每项 content、status）；每次用模型交来的整张清单替换旧的，返回一句结果',
        section: SECTION,
        scenario: PLANNING,
        expect(run) {
            const first = requestFor(run, PLAN) ?? run.requests[0];
            const schema = toolSchema(first, 'todo_write');
            if (schema?.parameters?.properties?.todos?.type !== 'array') {
                throw new Miss('请求的 tools 里有 todo_write，参数 todos 的类型是 array', `tools：${JSON.stringify(toolNames(first))}；todo_write：${JSON.stringify(schema ?? null)}`);
            }
            if (toolResult(run, 'call_todo_1') === undefined) {
                throw new Miss('模型调用 todo_write 之后，下一个请求里有这次调用的 tool 消息', showMessages(run.requests.at(-1)));
            }
        },
    },
    {
        day: 9,
        name: '用户要 TODO 清单时，这一轮第一个请求强制先调用 todo_write（tool_choice）',
        hint: '一轮的第一个请求前看用户这句话：要计划（有 TODO、任务列表、然后……）时请求里带 tool_choice: {type:"function",function:{name:"todo_write"}}；普通的话不要强制',
        section: SECTION,
        scenario: PLANNING,
        expect(run) {
            const plan = requestFor(run, PLAN);
            if (forced(plan) !== 'todo_write') {
                throw new Miss(`「${PLAN}」这一轮的第一个请求带 tool_choice 指定 todo_write`, `tool_choice：${JSON.stringify(plan?.tool_choice ?? null)}`);
            }
            const plain = requestFor(run, PLAIN);
            if (forced(plain) === 'todo_write') {
                throw new Miss(`「${PLAIN}」不要计划，请求不强制 todo_write`, `tool_choice：${JSON.stringify(plain.tool_choice)}`);
            }
        },
    },
    {
        day: 9,
        name: '子 Agent 的请求是一次新的对话：不带主对话的历史',
        hint: 'delegate_task 只把任务交给子 Agent：单独发一个请求，消息只有子 Agent 的系统提示和这条任务，不要把主对话的 history 一起发出去',
        section: SECTION,
        scenario: DELEGATING,
        expect(run) {
            const sub = subRequest(run);
            if (!sub) {
                throw new Miss('模型调用 delegate_task 后，模型收到一个以任务为用户消息的请求（子 Agent）', `模型收到的请求：\n${run.requests.map((b) => showMessages(b).split('\n').at(-1)).join('\n')}`);
            }
            const leaked = messagesOf(sub).some((m) => contentOf(m).includes(HIST) || m.role === 'tool' || Array.isArray(m.tool_calls));
            if (leaked) throw new Miss('子 Agent 的请求里没有主对话的消息（暗号、工具调用都不在）', showMessages(sub));
        },
    },
    {
        day: 9,
        name: '子 Agent 的结论作为 delegate_task 的工具结果回到主对话',
        hint: 'delegate_task 的 run 返回子 Agent 回答的文字，它像其他工具结果一样成为一条 tool 消息，主对话接着请求模型',
        section: SECTION,
        scenario: DELEGATING,
        expect(run) {
            const result = toolResult(run, 'call_delegate_1');
            if (!result?.includes(ANSWER)) {
                throw new Miss(`delegate_task 的工具结果里有子 Agent 的回答 ${ANSWER}`, result === undefined ? `没有这次调用的 tool 消息；最后一个请求：\n${showMessages(run.requests.at(-1))}` : `工具结果：${result}`);
            }
        },
    },
];
