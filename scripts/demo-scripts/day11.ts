// 第 9–11 天的演示：先列 TODO 计划，把一个子任务交给子 Agent，记下一条长期记忆；再用一个技能（/use explore）。
import fs from 'node:fs';
import path from 'node:path';
import { callTools, say, type DemoScript } from './script.js';

const plan = (first: string, second: string, third: string) => ({
    todos: [
        { content: '了解项目结构', status: first },
        { content: '记下测试命令', status: second },
        { content: '总结', status: third },
    ],
});

const script: DemoScript = {
    setup: (cwd) => fs.writeFileSync(path.join(cwd, 'package.json'), '{ "name": "demo", "scripts": { "test": "node --test" } }\n'),
    input: ['帮我了解这个项目，并记住它的测试命令', '/todos', '/memory', '/skills', '/use explore', '项目里有哪些文件？'],
    replies: [
        callTools(['todo_write', plan('in_progress', 'pending', 'pending')]),
        callTools(['delegate_task', { task: '这是一个项目的 package.json：{ "name": "demo", "scripts": { "test": "node --test" } }。说出项目名和测试命令。' }]),
        // 子 Agent 的那一次请求：只有它自己的系统提示和任务，没有工具、没有主对话的历史
        say('项目名 demo；测试命令 npm test（实际运行 node --test）。'),
        callTools(['memory_write', { content: '项目 demo 的测试命令是 npm test' }], ['todo_write', plan('completed', 'completed', 'completed')]),
        say('这是一个名为 demo 的 Node 项目，测试命令 npm test 已记进长期记忆。'),
        callTools(['ls', { path: '.' }]),
        say('只有一个 package.json（按 explore 技能的要求，我只读不改）。'),
    ],
};
export default script;
