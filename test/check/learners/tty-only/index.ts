// 一个只在终端里跑的小 Agent，像原教程第 7 天起的那样：stdin 或 stdout 不是终端（TTY）就说一句、立刻退出；
// 在终端里是第 1 天的行式 REPL（彩色提示符、流式回复、多轮历史），/exit 或 Ctrl+D 退出。只用 Node 自带的东西。
// 管道跑不了它：检查要经伪终端（npm run check 的 --tty）才看得到它做的事。
import readline from 'node:readline';

if (!process.stdin.isTTY || !process.stdout.isTTY) {
    console.error('这个 Agent 需要真实终端（TTY）：请直接在终端里运行，不要接管道或重定向。');
    process.exit(1);
}

const BASE_URL = process.env.OPENAI_BASE_URL ?? 'https://api.deepseek.com';
const MODEL = process.env.OPENAI_MODEL ?? 'deepseek-chat';
const history: { role: string; content: string }[] = [];

async function reply(input: string): Promise<void> {
    const start = history.length;
    history.push({ role: 'user', content: input });
    try {
        const res = await fetch(`${BASE_URL}/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
            body: JSON.stringify({ model: MODEL, messages: history, stream: true }),
        });
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}：${await res.text()}`);
        let answer = '';
        let buffer = '';
        const decoder = new TextDecoder();
        for await (const chunk of res.body) {
            buffer += decoder.decode(chunk as Uint8Array, { stream: true });
            const lines = buffer.split('\n');
            buffer = lines.pop() ?? '';
            for (const line of lines) {
                const data = line.trim();
                if (!data.startsWith('data:') || data === 'data: [DONE]') continue;
                const delta = JSON.parse(data.slice(5)).choices?.[0]?.delta?.content;
                if (delta) {
                    answer += delta;
                    process.stdout.write(`\x1b[32m${delta}\x1b[0m`);
                }
            }
        }
        process.stdout.write('\n');
        history.push({ role: 'assistant', content: answer });
    } catch (e) {
        history.length = start;
        console.error(`\n请求失败：${(e as Error).message}`);
    }
}

const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
rl.setPrompt('\x1b[36mYou ›\x1b[0m ');
let busy = false;

rl.on('line', async (raw) => {
    if (busy) return;
    busy = true;
    const line = raw.trim();
    if (line === '/exit') return rl.close();
    if (line) await reply(line);
    busy = false;
    rl.prompt();
});

rl.on('close', () => {
    console.log('bye');
    process.exit(0);
});

console.log(`\x1b[90m终端小 Agent（模型：${MODEL}），/exit 或 Ctrl+D 退出\x1b[0m`);
rl.prompt();
