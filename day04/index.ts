// Day 1：命令行 REPL。读一行 → 连同整个历史发给模型 → 回复一边生成一边显示 → 再读下一行。
import readline from 'node:readline';
import { Chat, type ReplyPiece } from './chat.ts';
import { colorEnabled, err, out, paint } from './color.ts';
import { keyHost, loadConfig, MISSING_KEY } from './config.ts';
import { registerFileTools } from './files.ts';
import { EOF, InputQueue, readAnswer } from './input.ts';
import { registerShellTools } from './shell.ts';
import { listTools, setConfirmFn } from './tools.ts';

const BANNER = 'GeekAgent Day 4 — 文件工具与工具注册表（day04）';
const cfg = loadConfig();
const chat = new Chat(cfg);
// Day 4：工具由入口显式注册，打开这个文件就看得到有哪些工具；注册的先后就是请求里、/help 里的顺序
registerShellTools();
registerFileTools();
const interactive = Boolean(process.stdin.isTTY);
let running: AbortController | null = null;   // 进行中的一轮
const queue = new InputQueue();   // Day 3：读到的行先排队，确认问题也从这里取回答
let confirming = false;           // Day 3：正在等 [y/N] 的回答

out('system', BANNER);
out('system', '这是教学版，只有章节里讲到的东西；日常使用请在仓库根目录运行 npm start（加固版）');
out('system', `模型：${cfg.model}　密钥发往 ${keyHost(cfg)}　输入 /help 查看命令`);
if (!cfg.apiKey) err('error', MISSING_KEY);

const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
const YOU = paint('user', 'You › ');
rl.setPrompt(YOU);
rl.on('line', (line) => queue.push(line));   // Day 3：每一行都进队
rl.on('close', () => queue.push(EOF));
// Ctrl+C：回复进行中取消这一轮，空闲时退出。终端里它是 readline 收到的一个按键，管道输入时是发给进程的信号
rl.on('SIGINT', interrupt);
process.on('SIGINT', interrupt);

function interrupt(): void {
    if (!running) {
        rl.close();
        return;
    }
    running.abort();   // 正在跑的命令收到同一个信号，整组被杀
    if (confirming) queue.push('');   // Day 3：正在等 [y/N]：替你答「否」，免得它吞掉你接下来打的一行
}

// Day 3：工具要改变什么之前先问。问题原样显示（控制字符转义）；只有 y / yes 算同意，空行、别的字、输入结束、Ctrl+C 都是否
setConfirmFn(async (question) => {
    out('tool', question);
    rl.setPrompt(paint('tool', '[y/N] '));   // readAnswer() 显示它
    confirming = true;
    const answer = await readAnswer(queue, rl);
    confirming = false;
    rl.setPrompt(YOU);
    return /^(y|yes)$/i.test(answer.trim());
});

const HELP = '/help   显示帮助\n/reset  清空对话记忆\n/exit   退出（Ctrl+D、Ctrl+C 也可以）';

function command(line: string): void {
    if (line === '/help') {
        out('system', HELP);
        out('system', `可用工具：\n${listTools().map((t) => `  ${t.name}  ${t.description}`).join('\n')}`);   // Day 4
    } else if (line === '/reset') {
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
        if (piece.type === 'progress') {
            out('tool', `${last === 'progress' ? '' : '\n'}[${piece.text}]`);   // Day 2：工具调用的进度行，黄色
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

// Day 3：行从输入队列里取；队里还有排着的行时不显示提示符，它们马上就处理
for (;;) {
    if (interactive && queue.size === 0) rl.prompt();
    const item = await queue.next();
    if (item === EOF) break;
    const line = item.trim();
    if (!interactive && line) out('user', `You › ${line}`);   // 管道输入不回显：替它打出来，输出才读得懂
    if (line === '/exit') break;
    if (line.startsWith('/')) command(line);
    else if (line) await turn(line);
}
rl.close();
out('system', 'bye');
