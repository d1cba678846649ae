// Day 1：命令行 REPL。读入的行按顺序一行一行处理：回复进行中打的行（或管道里后面的行）先存着，一行也不丢。
import readline from 'node:readline';
import { Chat, type ReplyPiece } from './chat.js';
import { colorEnabled, err, out, paint } from './color.js';
import { loadConfig } from './config.js';
import { traceStatus } from './trace.js';

const cfg = loadConfig();
const chat = new Chat(cfg);
const interactive = Boolean(process.stdin.isTTY);
let running: AbortController | null = null;

const BANNER = 'GeekAgent Day 1 — 最简单的 Agent（day01）';
out('system', BANNER);
out('system', `模型：${cfg.model}　输入 /help 查看命令`);
if (process.env.GEEKAGENT_TRACE) out('system', traceStatus(false));

const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
rl.setPrompt(paint('user', 'You › '));
// Ctrl+C：回复进行中 → 取消这一轮；空闲时 → 退出。管道输入时收到 SIGINT 直接走退出流程。
rl.on('SIGINT', () => (running ? running.abort() : rl.close()));
process.on('SIGINT', () => exit());
process.stdout.on('error', () => exit());   // 读输出的一方先关了管道（… | head）：安静退出，不打印堆栈

const HELP = [
    '/help   显示帮助',
    '/reset  清空对话记忆',
    '/trace  开关协议追踪（和模型收发的原文，写入 .geekagent/trace.log）',
    '/exit   退出（Ctrl+D、Ctrl+C 也可以）',
];

/** 执行一条命令；返回 false 表示要退出。 */
function command(line: string): boolean {
    if (line === '/exit') return false;
    if (line === '/help') out('system', HELP.join('\n'));
    else if (line === '/trace') out('system', traceStatus(true));
    else if (line === '/reset') {
        chat.reset();
        out('system', '（对话记忆已清空）');
    } else out('system', `未知命令：${line}（输入 /help 查看）`);
    return true;
}

/** 把流式片段打到终端：思考内容变暗（无颜色时以「思考：」开头），正文绿色。 */
function createPrinter() {
    let last = '';
    return (piece: ReplyPiece) => {
        if (piece.type === 'notice') {
            out('system', `\n${piece.text}`, false);
        } else if (piece.type === 'reasoning') {
            if (last !== 'reasoning' && !colorEnabled) out('reasoning', '思考：');
            out('reasoning', piece.text, false);
        } else {
            if (last === 'reasoning') out('model', '\n', false);
            out('model', piece.text, false);
        }
        last = piece.type;
    };
}

async function turn(text: string): Promise<void> {
    const controller = new AbortController();
    running = controller;
    const print = createPrinter();
    try {
        for await (const piece of chat.streamReply(text, controller.signal)) print(piece);
        process.stdout.write('\n');
    } catch (e) {
        if (controller.signal.aborted) out('system', '\n（已中断，本轮已撤销）');
        else err('error', `\n请求失败：${(e as Error).message}`);
    } finally {
        running = null;
    }
}

function exit(): never {
    out('system', 'bye');
    process.exit(0);
}

// readline 的异步迭代替我们排队：回复进行中打的行、管道里后面的行都先存着，按顺序交出来，一行也不丢
if (interactive) rl.prompt();
for await (const item of rl) {
    const line = item.trim();
    if (line && !interactive) out('user', `You › ${line}`);
    if (line.startsWith('/') && !command(line)) break;
    if (line && !line.startsWith('/')) await turn(line);
    if (interactive) rl.prompt();
}
exit();
