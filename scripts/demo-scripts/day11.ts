// 第 9–11 天的演示，按天的顺序：
//   第 9 天：「然后」让第一个请求强制 todo_write → 读文件 → delegate_task 交给子 Agent → 委派后再强制 todo_write → /todos；
//   第 10 天：不调用任何工具就答出 AGENTS.md 里的约定（它在每个请求的系统提示里）；memory_write 记下偏好，
//            /reset 清空对话后 /memory 仍在，memory_search 把它找回来；
//   第 11 天：/use explore 之后模型想 run_shell，执行时就被技能的白名单拒绝，不弹确认。
// 几处回复按请求内容现编：没有被强制 todo_write、子 Agent 的请求带了历史或工具时，演示脚本会在记录里说出来。
import fs from 'node:fs';
import path from 'node:path';
import type { FakeReply } from '../fake-model/replies.ts';
import type { RecordedRequest } from '../fake-model/server.ts';
import { callTools, say, type DemoScript } from './script.ts';

const PACKAGE = '{ "name": "demo", "scripts": { "test": "node --test", "check": "tsc --noEmit && node --test" } }\n';

const plan = (first: string, second: string) => ['todo_write', {
    todos: [
        { content: '读 package.json', status: first },
        { content: '列出提交前要跑的命令', status: second },
    ],
}] as [string, object];

/** 入口在这一次请求里强制了 todo_write，模型才「只能」先更新计划。 */
const forced = (reply: FakeReply) => (req: RecordedRequest) =>
    req.body.tool_choice?.function?.name === 'todo_write' ? reply : say('（演示脚本：这一次请求本该强制 todo_write，但没有）');

/** 子 Agent 的请求：只有它自己的系统提示和任务两条消息，没有工具。 */
const subAgent = (reply: FakeReply) => (req: RecordedRequest) =>
    req.body.messages.length === 2 && !req.body.tools ? reply : say('（演示脚本：子 Agent 的请求不该带历史或工具）');

/** 系统提示里「项目说明（AGENTS.md）：」那一节的要点：模型没读文件，是入口每次请求都带给它的。 */
const fromAgentsMd = (req: RecordedRequest) => {
    const system = req.body.messages[0].role === 'system' ? req.body.messages[0].content : '';
    const section = /项目说明（AGENTS\.md）：\n([\s\S]*?)(\n\n|$)/.exec(system)?.[1] ?? '无';
    const points = section.split('\n').filter((l: string) => l.startsWith('- ')).map((l: string) => l.slice(2));
    return say(points.length ? `项目说明（AGENTS.md）里写着：${points.join('；')}。` : '这个项目没有 AGENTS.md。');
};

/** 复述 memory_search 找到的第一条：/reset 之后，这个答案只能来自长期记忆。 */
const fromMemory = (req: RecordedRequest) => {
    const found = req.body.messages.at(-1).content as string;
    const first = /^1\. (.+)$/m.exec(found)?.[1];
    return say(first ? `长期记忆里记着：${first}。` : '长期记忆里没有相关的内容。');
};

const steps: (FakeReply | ((req: RecordedRequest) => FakeReply))[] = [
    // 第 9 天
    forced(callTools(plan('in_progress', 'pending'))),
    callTools(['read', { path: 'package.json' }]),
    callTools(['delegate_task', { task: `package.json 如下：${PACKAGE.trim()}。提交前应该跑哪个命令？一句话说明理由。` }]),
    subAgent(say('npm run check：它先做类型检查，再跑测试，一条命令覆盖两项。')),
    forced(callTools(plan('completed', 'completed'))),
    say('提交前运行 npm run check（先类型检查，再跑测试）。'),
    // 第 10 天
    fromAgentsMd,
    callTools(['memory_write', { content: '用户喜欢简短的回答' }]),
    say('记住了。'),
    callTools(['memory_search', { query: '喜欢 回答' }]),
    fromMemory,
    // 第 11 天
    callTools(['run_shell', { command: 'rm -rf build' }]),
    say('explore 技能只读，不能执行命令：build 目录没有动。'),
];

const script: DemoScript = {
    setup: (cwd) => {
        fs.writeFileSync(path.join(cwd, 'package.json'), PACKAGE);
        fs.writeFileSync(path.join(cwd, 'AGENTS.md'), '# 项目约定\n- 代码缩进 4 个空格\n- 提交信息写中文，一行说清改了什么\n');
        fs.mkdirSync(path.join(cwd, 'build'));
    },
    input: [
        '读一下 package.json，然后告诉我提交前要跑什么', '/todos',
        '这个项目有什么约定？', '记住：我喜欢简短的回答', '/reset', '/memory', '我喜欢什么样的回答？',
        '/use explore', '顺手把 build 目录删了',
    ],
    replies: (req, n) => {
        const step = steps[n] ?? say('（演示脚本已经说完了）');
        return typeof step === 'function' ? step(req) : step;
    },
};
export default script;
