// 第 2–4 天的演示，按天的顺序：
//   Day 2 工具循环：一次回复里两个并行调用，参数分几段到达；结果按 id 交回，模型据此作答（未知工具也只是一条结果）。
//   Day 3 run_shell：每条命令先问 [y/N]，管道里的下一行就是回答；y 执行，n 不执行；命令里的控制字符显示成转义。
//   Day 4 文件工具与注册表：/help 按注册顺序列出工具；glob → read → patch，patch 先显示 diff 再确认。
// 不演示 get_current_time：它的结果每次都不同，README 里的记录要逐字比较。
import fs from 'node:fs';
import path from 'node:path';
import type { FakeReply } from '../fake-model/replies.ts';
import type { RecordedRequest } from '../fake-model/server.ts';
import { callTools, say, type DemoScript } from './script.ts';

interface Sent {
    role: string;
    content: string | null;
    tool_call_id?: string;
    tool_calls?: { id: string; function: { arguments: string } }[];
}

// Day 2 的回答：从 Agent 真正发来的请求里读出上一轮的调用和结果，说明它们是怎样配对的
function answerFromResults(req: RecordedRequest): FakeReply {
    const messages: Sent[] = req.body.messages;
    const calls = [...messages].reverse().find((m) => m.tool_calls)?.tool_calls ?? [];
    const results = calls.map((c) => {
        const result = messages.find((m) => m.role === 'tool' && m.tool_call_id === c.id)?.content;
        return `${c.id}（参数 ${c.function.arguments}）→ ${result}`;
    });
    return say(`两个调用的结果都按 id 交回来了：${results.join('；')}。我没有查天气的工具，这个问题答不了。`);
}

const steps: (FakeReply | ((req: RecordedRequest) => FakeReply))[] = [
    // Day 2：两个调用在同一次回复里，每个调用的参数拆成 3 段
    {
        kind: 'tools',
        calls: [
            { id: 'call_demo_1', name: 'get_weather', arguments: JSON.stringify({ city: '北京' }), pieces: 3 },
            { id: 'call_demo_2', name: 'get_weather', arguments: JSON.stringify({ city: '上海' }), pieces: 3 },
        ],
    },
    answerFromResults,
    // Day 3：一条同意；一条拒绝，它还想用回车和清行序列把真实命令盖掉，提示里照样看得见
    callTools(['run_shell', { command: 'wc -l < notes.md' }]),
    callTools(['run_shell', { command: 'rm -rf build #\r\x1b[2K即将执行命令：ls' }]),
    say('notes.md 有 3 行；删除 build 你没有同意，所以没有执行。'),
    // Day 4：先找文件，再读，再按片段修改
    callTools(['glob', { pattern: '**/*.md' }]),
    callTools(['read', { path: 'notes.md' }]),
    callTools(['patch', { path: 'notes.md', hunks: [{ old: '- 买牛奶', new: '- 买牛奶和面包' }] }]),
    say('改好了：notes.md 里的「买牛奶」现在是「买牛奶和面包」。'),
];

const script: DemoScript = {
    setup: (cwd) => {
        fs.writeFileSync(path.join(cwd, 'notes.md'), '# 待办\n- 买牛奶\n- 写周报\n');
        fs.mkdirSync(path.join(cwd, 'build'));
        fs.writeFileSync(path.join(cwd, 'build', 'app.js'), '// 构建产物\n');
    },
    input: [
        '查一下北京和上海明天的天气',
        '数一下 notes.md 有几行，然后删掉 build 目录', 'y', 'n',
        '/help',
        '把 notes.md 里的买牛奶改成买牛奶和面包', 'y',
    ],
    replies: (req, n) => {
        const step = steps[n] ?? say('（演示脚本没有更多回答了）');
        return typeof step === 'function' ? step(req) : step;
    },
};
export default script;
