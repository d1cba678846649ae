// 第 12–15 天的演示，按天的顺序：
//   第 12 天：search 在项目里找 TODO；fetch 遇到 file:// 地址，不问用户直接拒绝（演示不联网，所以不抓真网页）；
//   第 13 天：长期记忆里已有两条，提问时自动召回的那条出现在这一轮的系统提示里，「模型」照着它回答；
//   第 14 天：rag_add 收录一个本地文件（先确认），rag_search 检索它；
//   第 15 天：即原教程第 15 天「先看效果」的那一段：/mcp 列出演示服务器的两个工具，
//   模型先后调用 mcp_demo_word_count 和 mcp_demo_dice，每次执行前确认，最后用工具结果作答。
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RecordedRequest } from '../fake-model/server.ts';
import { ROOT } from '../stages.ts';
import { callTools, say, type DemoScript } from './script.ts';

const PHRASE = 'Model Context Protocol';

// 请求里最近一次工具调用的结果（按调用 id 从后往前找：演示脚本的调用 id 每次回复都从 call_demo_1 起）
const toolResult = (req: RecordedRequest, id: string): string =>
    [...req.body.messages].reverse().find((m: { tool_call_id?: string }) => m.tool_call_id === id)?.content ?? '';

const script: DemoScript = {
    setup: (cwd, home) => {
        fs.mkdirSync(path.join(cwd, '.geekagent'));
        // 演示服务器用绝对路径：agent 在临时目录里运行
        const demo = { command: 'node', args: [path.join(ROOT, 'day15', 'demo-server.mjs')] };
        fs.writeFileSync(path.join(cwd, '.geekagent', 'mcp.json'), JSON.stringify({ mcpServers: { demo } }, null, 2));
        // 第 13 天：之前的对话里记下的两条长期记忆
        const memories = ['项目的测试命令是 npm test', '用户喜欢简短的中文回答'];
        fs.writeFileSync(path.join(cwd, '.geekagent', 'memory.json'), JSON.stringify(memories, null, 2));
        // 加固版（npm run demo -- hardened 也用这个脚本）只用这个用户的 Agent 写的状态文件：主目录的写入记录里记下它的摘要（算法同
        // hardened/written.ts）；课不看这个记录
        const digest = createHash('sha256').update(JSON.stringify(memories)).digest('hex');
        fs.mkdirSync(path.join(home, '.geekagent'));
        fs.writeFileSync(path.join(home, '.geekagent', 'written.json'), JSON.stringify({ [path.join(cwd, '.geekagent', 'memory.json')]: digest }));
        fs.writeFileSync(path.join(cwd, 'notes.md'), '# 发布说明\n发布前先运行 npm test，再更新 CHANGELOG。\nTODO: 补上回滚步骤\n');
        fs.mkdirSync(path.join(cwd, 'src'));
        fs.writeFileSync(path.join(cwd, 'src', 'app.js'), '// TODO: 处理空输入\nexport const add = (a, b) => a + b;\n');
    },
    input: [
        'y',   // 启动时的文件夹信任问题：mcp.json 要启动一个服务器，它以你的用户权限运行
        '项目里还有哪些 TODO？顺便读一下 file:///etc/hostname',
        '测试命令是什么？',
        '把 notes.md 收进知识库，再查一下发布前要做什么', 'y',
        '/mcp',
        `掷一次骰子，再统计「${PHRASE}」这个词组的字符数和词数`, 'y', 'y',
    ],
    replies: (req, n) => {
        switch (n) {
            case 0: return callTools(['search', { pattern: 'TODO' }], ['fetch', { url: 'file:///etc/hostname' }]);
            case 1: return say('有两处 TODO：notes.md 第 3 行、src/app.js 第 1 行。file:// 地址 fetch 不抓。');
            case 2: {
                // 复述这一轮系统提示里自动召回的第一条记忆：回答里的文字来自真实的请求，召回确实发生了
                const system: string = req.body.messages[0].content;
                const hit = /自动召回了.*\n1\. （[^）]*）(.*)/.exec(system)?.[1] ?? '（没有召回）';
                return say(`（本轮系统提示里召回的记忆：${hit}）测试命令是 npm test。`);
            }
            case 3: return callTools(['rag_add', { source: 'notes.md' }]);
            case 4: return callTools(['rag_search', { query: '发布前要做什么' }]);
            case 5: return say('按 notes.md：发布前先运行 npm test，再更新 CHANGELOG。');
            case 6: return callTools(['mcp_demo_word_count', { text: PHRASE }], ['mcp_demo_dice', {}]);
            default: {
                // 最后一次回答复述骰子的真实点数：从请求里找到 dice 的工具结果
                const dice = toolResult(req, 'call_demo_2');
                return say(`骰子点数是 ${/\d/.exec(dice)?.[0] ?? '?'}。「${PHRASE}」共有 22 个字符、3 个词。`);
            }
        }
    },
};
export default script;
