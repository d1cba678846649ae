// 除了开头这两行注释，和 day1-repl 一字不差，只少了一行：模型的回答没放回 history（第二问的请求里只有两个问题）。
// 检查要判它第 1 天「多轮对话」不通过，给放回 history 的提示；别的项照样通过。
import readline from 'node:readline';

const BASE_URL = process.env.OPENAI_BASE_URL ?? 'https://api.deepseek.com';
const MODEL = process.env.OPENAI_MODEL ?? 'deepseek-chat';

type Message = { role: 'user' | 'assistant'; content: string };
const history: Message[] = [];

// 带着整个 history 发出去，边收边交出 delta.content；出错就把这一轮的用户消息撤掉
async function* streamReply(input: string): AsyncGenerator<string> {
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
                    yield delta;
                }
            }
        }
    } catch (e) {
        history.pop();
        throw e;
    }
}

const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
rl.setPrompt('You › ');
let busy = false;

rl.on('line', async (raw) => {
    if (busy) return;   // 上一轮还在输出：这一行不要了
    busy = true;
    const line = raw.trim();
    if (line === '/exit') {
        rl.close();
        return;
    }
    if (line) {
        try {
            for await (const delta of streamReply(line)) process.stdout.write(delta);
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

console.log(`GeekAgent Day 1（模型：${MODEL}）`);
rl.prompt();
