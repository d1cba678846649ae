// 第 2–4 天的演示：工具循环。模型先要执行命令（确认后才跑），再读文件、改文件（先看差异再确认），最后总结。
import fs from 'node:fs';
import path from 'node:path';
import { callTools, say, type DemoScript } from './script.js';

const script: DemoScript = {
    setup: (cwd) => fs.writeFileSync(path.join(cwd, 'notes.txt'), '演示笔记\nTODO：写第 4 天的演示\n'),
    input: ['看看当前目录有哪些文件，再把 notes.txt 里的 TODO 标成 DONE', 'y', 'y'],
    replies: [
        callTools(['run_shell', { command: 'ls' }]),
        callTools(['read', { path: 'notes.txt' }]),
        callTools(['write', { path: 'notes.txt', content: '演示笔记\nDONE：写第 4 天的演示\n' }]),
        say('目录里只有 notes.txt；我已把其中的 TODO 改成了 DONE。'),
    ],
};
export default script;
