// Day 9：TODO 规划和子 Agent。todo_write 每次替换整张清单；delegate_task 把有边界的子任务交给子 Agent。
// 子 Agent 由入口传进来（Chat.delegate），所以这里不依赖 chat.ts。
import { registerTool } from './tools.ts';

export type TodoStatus = 'pending' | 'in_progress' | 'completed';
export interface Todo {
    content: string;
    status: TodoStatus;
}

// 进程内的一张清单：不随对话切换，也不保存到磁盘
let todos: Todo[] = [];

export function getTodos(): Todo[] {
    return todos;
}

export function formatTodos(): string[] {
    const mark: Record<TodoStatus, string> = { pending: '[ ] ', in_progress: '[>] ', completed: '[x] ' };
    return todos.map((t) => mark[t.status] + t.content);
}

/** 用户是不是在要一个计划：出现这些词时第一轮强制调用 todo_write。 */
function wantsTodo(text: string): boolean {
    return /todo|任务列表|然后|最后|[后并]再?(给出|推荐|总结|汇总)/i.test(text);
}

/** 交给 Chat.setForcedTool 的规划策略：用户要计划时的第一轮、委派之后的下一轮，先更新 TODO 清单。 */
export function forceTodo(input: string, lastCalls: string[]): string | null {
    const force = lastCalls.length === 0 ? wantsTodo(input) : lastCalls.includes('delegate_task');
    return force ? 'todo_write' : null;
}

export function registerPlanningTools(delegate: (task: string) => Promise<string>, changed: () => void): void {
    registerTool({
        name: 'todo_write',
        description: '写入（整体替换）当前任务的 TODO 清单。多步骤任务先列计划，执行中更新状态；同一时间最多一项 in_progress。',
        parameters: {
            type: 'object',
            properties: {
                todos: {
                    type: 'array',
                    description: '完整的新清单',
                    items: {
                        type: 'object',
                        properties: {
                            content: { type: 'string', description: '简短、可执行的任务' },
                            status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
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
            const invalid = invalidTodos(args.todos);   // 校验失败时保留旧清单
            if (invalid) return invalid;
            todos = (args.todos as Todo[]).map((t) => ({ content: t.content.trim(), status: t.status }));
            changed();
            return `已更新 ${todos.length} 项 TODO`;
        },
    });
    registerTool({
        name: 'delegate_task',
        description: '把一个有边界的分析、设计或审查子任务交给子 Agent，拿回简明结论。一次只委派一个。',
        parameters: {
            type: 'object',
            properties: { task: { type: 'string', description: '完整、自包含的子任务描述' } },
            required: ['task'],
            additionalProperties: false,
        },
        run(args) {
            if (typeof args.task !== 'string' || !args.task.trim()) return '缺少参数：task';
            return delegate(args.task);
        },
    });
}

// —— 加固：模型写来的清单先校验 ——

/** 模型写来的清单不合格时返回说明：缺字段、空内容、未知状态，或不止一项进行中。合格返回 null。 */
function invalidTodos(list: unknown): string | null {
    const valid = Array.isArray(list) && list.every((t) =>
        t && typeof t.content === 'string' && t.content.trim() && ['pending', 'in_progress', 'completed'].includes(t.status));
    if (!valid) return 'TODO 格式无效';
    if (list.filter((t) => t.status === 'in_progress').length > 1) return '同一时间只能有一项 TODO 处于进行中';
    return null;
}
