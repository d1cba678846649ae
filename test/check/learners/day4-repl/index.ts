// 一个学习者照第 2–4 天的章节、用原教程的 REPL 写法自己写的 Agent：rl.on('line') 加 busy 标志（一轮没结束时打的行直接丢掉），
// 确认时临时挂一个 line 监听器读下一行，rl.on('close') 就退出。只用 Node 自带的东西，没有加固。
import readline from 'node:readline';
import { streamReply } from './chat.js';
import { setConfirm } from './tools.js';
import './files.js';

const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
rl.setPrompt('You › ');
let busy = false;

// 确认读 stdin 的下一行：那一行主循环也收到，但它正忙，直接丢掉。输入在确认时结束：close 让整个程序退出，命令不执行
setConfirm((question) => new Promise((resolve) => {
    const onLine = (raw: string) => {
        rl.removeListener('line', onLine);
        const answer = raw.trim().toLowerCase();
        resolve(answer === 'y' || answer === 'yes');
    };
    rl.on('line', onLine);
    process.stdout.write(`${question} [y/N] `);
}));

rl.on('line', async (raw) => {
    if (busy) return;   // 上一轮还在进行：这一行不要了
    busy = true;
    const line = raw.trim();
    if (line === '/exit') {
        rl.close();
        return;
    }
    if (line) {
        try {
            for await (const piece of streamReply(line)) process.stdout.write(piece);
            process.stdout.write('\n');
        } catch (e) {
            console.error(`请求失败：${(e as Error).message}`);
        }
    }
    busy = false;
    rl.prompt();
});

rl.on('close', () => {
    console.log('bye');
    process.exit(0);
});

console.log(`GeekAgent Day 4（模型：${process.env.OPENAI_MODEL}）`);
rl.prompt();
