// Day 1：命令行 REPL。读一行 → 连同整个历史发给模型 → 回复一边生成一边显示 → 再读下一行。
import readline from 'node:readline';
import { Chat, type ReplyPiece } from './chat.ts';
import { colorEnabled, err, out, paint } from './color.ts';
import { keyHost, loadConfig, MISSING_KEY } from './config.ts';

const BANNER = 'GeekAgent Day 1 — 最简单的 Agent（day01）';
const cfg = loadConfig();
const chat = new Chat(cfg);
const interactive = Boolean(process.stdin.isTTY);
let running: AbortController | null = null;   // 进行中的一轮

out('system', BANNER);
out('system', '这是教学版，只有章节里讲到的东西；日常使用请在仓库根目录运行 npm start（加固版）');
out('system', `模型：${cfg.model}　密钥发往 ${keyHost(cfg)}　输入 /help 查看命令`);
if (!cfg.apiKey) err('error', MISSING_KEY);

const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
rl.setPrompt(paint('user', 'You › '));
// Ctrl+C：回复进行中取消这一轮，空闲时退出。终端里它是 readline 收到的一个按键，管道输入时是发给进程的信号
const interrupt = () => (running ? running.abort() : rl.close());
rl.on('SIGINT', interrupt);
process.on('SIGINT', interrupt);

const HELP = '/help   显示帮助\n/reset  清空对话记忆\n/exit   退出（Ctrl+D、Ctrl+C 也可以）';

function command(line: string): void {
    if (line === '/help') out('system', HELP);
    else if (line === '/reset') {
        chat.reset();
        out('system', '（对话记忆已清空）');
    } else out('system', `未知命令：${line}（输入 /help 查看）`);
}

async function turn(text: string): Promise<void> {
    const controller = running = new AbortController();
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

/** 把一块一块的回复打到屏幕上：思考内容变暗（没有颜色时前面加一行「思考：」），思考之后的正文另起一行。 */
function createPrinter(): (piece: ReplyPiece) => void {
    let last = '';
    return (piece) => {
        if (piece.type === 'reasoning') {
            if (last !== 'reasoning' && !colorEnabled) out('reasoning', '思考：');
            out('reasoning', piece.text, false);
        } else {
            if (last === 'reasoning') out('model', '\n', false);
            out('model', piece.text, false);
        }
        last = piece.type;
    };
}

// readline 的异步迭代替我们排队：回复进行中打的行（管道里后面的行）先存着，按顺序交出来，一行也不丢；输入结束时循环结束
if (interactive) rl.prompt();
for await (const item of rl) {
    const line = item.trim();
    if (!interactive && line) out('user', `You › ${line}`);   // 管道输入不回显：替它打出来，输出才读得懂
    if (line === '/exit') break;
    if (line.startsWith('/')) command(line);
    else if (line) await turn(line);
    if (interactive) rl.prompt();
}
rl.close();
out('system', 'bye');
