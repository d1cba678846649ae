// 第 12–15 天的演示，即 Day 15 文章「先看效果」的那一段：/mcp 列出演示服务器的两个工具，
// 模型先后调用 mcp_demo_word_count 和 mcp_demo_dice，每次执行前确认，最后用工具结果作答。
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../stages.js';
import { callTools, say, type DemoScript } from './script.js';

const PHRASE = 'Model Context Protocol';

const script: DemoScript = {
    // 演示服务器用绝对路径：agent 在临时目录里运行
    setup: (cwd) => {
        fs.mkdirSync(path.join(cwd, '.geekagent'));
        const demo = { command: 'node', args: [path.join(ROOT, 'day15', 'demo-server.mjs')] };
        fs.writeFileSync(path.join(cwd, '.geekagent', 'mcp.json'), JSON.stringify({ mcpServers: { demo } }, null, 2));
    },
    // 第一行回答启动时的文件夹信任问题：mcp.json 要启动一个服务器，它以你的用户权限运行
    input: ['y', '/mcp', `掷一次骰子，再统计「${PHRASE}」这个词组的字符数和词数`, 'y', 'y'],
    replies: (req, n) => {
        if (n === 0) return callTools(['mcp_demo_word_count', { text: PHRASE }], ['mcp_demo_dice', {}]);
        // 最后一次回答复述骰子的真实点数：从请求里找到 dice 的工具结果
        const dice = req.body.messages.find((m: { tool_call_id?: string }) => m.tool_call_id === 'call_demo_2')?.content ?? '';
        return say(`骰子点数是 ${/\d/.exec(dice)?.[0] ?? '?'}。「${PHRASE}」共有 22 个字符、3 个词。`);
    },
};
export default script;
