// 第 5–8 天的演示：权限（写文件要确认、根目录之外读不到）、/undo 撤销上一次改动、对话自动保存（/sessions）。
import fs from 'node:fs';
import path from 'node:path';
import { callTools, say, type DemoScript } from './script.js';

const script: DemoScript = {
    setup: (cwd) => fs.writeFileSync(path.join(cwd, 'notes.txt'), '演示笔记\nTODO：写第 8 天的演示\n'),
    input: ['把 notes.txt 里的 TODO 标成 DONE', 'y', '/undo', '再读一下 /etc/hostname', '/sessions'],
    replies: [
        callTools(['patch', { path: 'notes.txt', hunks: [{ old: 'TODO', new: 'DONE' }] }]),
        say('已把 TODO 改成 DONE。'),
        callTools(['read', { path: '/etc/hostname' }]),
        say('/etc/hostname 在项目根目录之外，权限层不让读。'),
    ],
};
export default script;
