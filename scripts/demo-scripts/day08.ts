// 第 5–8 天的演示，按天的顺序：
//   启动：项目自带的 .geekagent/GeekAgent.json 放行 run_shell，所以先问是否信任这个文件夹（答 y）；
//   第 5 天：三轮对话之后 /compact，把第一轮（含一对工具调用和结果）压成一条摘要；
//   第 6 天：/new 新建对话，/sessions 列出两个对话（default 因压缩变短了）；
//   第 7 天：演示走管道，所以是行模式前端（全屏界面见 README 里的 tmux 脚本）；
//   第 8 天：根目录之外的文件读不到；run_shell 已被放行、不再询问，输出里的密钥被替换；改文件要确认，/undo 撤销。
import fs from 'node:fs';
import path from 'node:path';
import { callTools, say, type DemoScript } from './script.ts';

const script: DemoScript = {
    setup: (cwd) => {
        fs.writeFileSync(path.join(cwd, 'notes.txt'), '# 待办\n- 买牛奶\n- 写周报\n');
        fs.writeFileSync(path.join(cwd, '..', 'outside.txt'), '项目之外的文件\n');
        fs.mkdirSync(path.join(cwd, '.geekagent'));
        fs.writeFileSync(path.join(cwd, '.geekagent', 'GeekAgent.json'), JSON.stringify({ root: '..', tools: { run_shell: 'allow' } }, null, 2) + '\n');
    },
    input: [
        'y',                                             // 信任这个文件夹
        'notes.txt 里有什么？',
        '目录里还有别的文件吗？',
        '先写周报吧',
        '/compact',
        '/new plan-b',
        '/sessions',
        '读一下 ../outside.txt，再看看 OPENAI_API_KEY 的值',
        '把买牛奶改成买面包',
        'y',
        '/undo',
    ],
    replies: [
        callTools(['read', { path: 'notes.txt' }]),
        say('两条待办：买牛奶、写周报。'),
        callTools(['ls', {}]),
        say('只有 notes.txt，另外 .geekagent/ 是 Agent 自己的目录。'),
        say('好，先写周报，再去买牛奶。'),
        // /compact 的摘要请求（非流式、不带工具）
        say('- notes.txt 里有两条待办：买牛奶、写周报\n- 目录里只有 notes.txt'),
        callTools(['read', { path: '../outside.txt' }], ['run_shell', { command: 'echo $OPENAI_API_KEY' }]),
        say('根目录之外的文件读不到；密钥在命令输出里已被替换掉。'),
        callTools(['patch', { path: 'notes.txt', hunks: [{ old: '- 买牛奶', new: '- 买面包' }] }]),
        say('改好了。'),
    ],
};
export default script;
