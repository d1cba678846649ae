// Day 9：TODO 规划。模型用 todo_write 交一整张清单，程序存着，/todos 和全屏界面的面板都从这里读；
// 要计划的时候，入口经 Chat 的钩子用 tool_choice 逼它先写清单（forceTodo）。
import { registerTool } from './tools.ts';

export type TodoStatus = 'pending' | 'in_progress' | 'completed';

export interface Todo {
    content: string;
    status: TodoStatus;
}

const STATUSES: TodoStatus[] = ['pending', 'in_progress', 'completed'];
const MARK: Record<TodoStatus, string> = { pending: '[ ] ', in_progress: '[>] ', completed: '[x] ' };

// 进程里只有一张清单：不随 /new、/open 切换，也不存盘。清单不在模型那里：模型看得到的是历史里它上一次交的参数
let todos: Todo[] = [];

/** 每项一行：[ ] 待办、[>] 进行中、[x] 完成。 */
export function formatTodos(): string[] {
    return todos.map((t) => MARK[t.status] + t.content);
}

export function registerPlanningTools(): void {
    registerTool({
        name: 'todo_write',
        description: '写入（整张替换）当前任务的 TODO 清单。多步骤任务先列计划，每做完一步交一次新清单；同一时间最多一项 in_progress。',
        parameters: {
            type: 'object',
            properties: {
                todos: {
                    type: 'array',
                    description: '完整的新清单',
                    items: {
                        type: 'object',
                        properties: {
                            content: { type: 'string', description: '简短、可执行的一步' },
                            status: { type: 'string', enum: STATUSES },
                        },
                        required: ['content', 'status'],
                        additionalProperties: false,
                    },
                },
            },
            required: ['todos'],
            additionalProperties: false,
        },
        run(args) {
            // 整张替换，不按 id 增删改：模型不用记编号。不合格就整张拒绝、旧清单原样留着，说明交回模型让它重交
            const list = args.todos;
            const valid = (t: any) => typeof t?.content === 'string' && t.content.trim() !== '' && STATUSES.includes(t.status);
            if (!Array.isArray(list) || !list.every(valid)) {
                throw new Error('todos 要是数组，每项有非空的 content 和 pending / in_progress / completed 之一的 status');
            }
            if (list.filter((t) => t.status === 'in_progress').length > 1) throw new Error('同一时间只能有一项 in_progress');
            todos = list.map((t) => ({ content: t.content.trim(), status: t.status }));
            return `已更新 ${todos.length} 项 TODO`;
        },
    });
}

/**
 * 交给 Chat.setForcedTool 的规划策略，每次请求前问一次：返回这一次必须先调用的工具，null 是让模型自己选。
 * 只在两个时候强制：一轮的第一个请求、而你这句话在要计划（计划词是猜的：闲聊里的「然后」也算，英文只认 todo）；
 * 上一次请求刚委派过子 Agent（lastCalls 里有 delegate_task）——拿到结论先把清单更新了，不靠模型自觉。
 */
export function forceTodo(input: string, lastCalls: string[]): string | null {
    const wanted = lastCalls.length === 0 ? /todo|任务列表|然后|最后|[后并]再?(给出|推荐|总结|汇总)/i.test(input) : lastCalls.includes('delegate_task');
    return wanted ? 'todo_write' : null;
}
