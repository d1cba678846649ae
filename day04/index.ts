// Day 1：命令行 REPL。读入的行按顺序一行一行处理：回复进行中打的行（或管道里后面的行）先存着，一行也不丢。
import readline from 'node:readline';
import { Chat, type ReplyPiece } from './chat.ts';
import { colorEnabled, err, out, paint } from './color.ts';
import { keyHost, loadConfig, missingKey } from './config.ts';
import { registerFileTools } from './files.ts';
import { askPaged, EOF, InputQueue } from './input.ts';
import { registerShellTools } from './shell.ts';
import { listTools, setConfirmFn } from './tools.ts';
import { traceStatus } from './trace.ts';
import { typing } from './typing.ts';   // 终端里打的字只在等输入时显示，回复进行中打的行轮到时再显示

const cfg = loadConfig();
const chat = new Chat(cfg);
// 注册的先后就是工具在请求里、在 /help 里的顺序
registerShellTools();
registerFileTools();
const queue = new InputQueue();   // Day 3：行先排队，确认问题也从这里取回答
const interactive = Boolean(process.stdin.isTTY);
let running: AbortController | null = null;   // 进行中的一轮

const BANNER = 'GeekAgent Day 4 — 文件工具与工具注册表（day04）';
out('system', BANNER);
out('system', `模型：${cfg.model}　密钥发往 ${keyHost(cfg)}　输入 /help 查看命令`);
if (!cfg.apiKey) err('error', missingKey());   // 没有密钥也照常启动：命令都能用，要和模型对话时才报错
if (process.env.GEEKAGENT_TRACE) out('system', traceStatus(false));
const rl = readline.createInterface({ input: process.stdin, output: typing.screen, terminal: interactive }).on('line', typing.submitted);
rl.setPrompt(paint('user', 'You › '));
rl.on('line', (line) => queue.push(line));
rl.on('close', () => queue.push(EOF));
handleSignals();

const HELP = [
    '/help   显示帮助',
    '/reset  清空对话记忆',
    '/trace  开关协议追踪（和模型收发的原文，写入 .geekagent/trace.log）',
    '/exit   退出（Ctrl+D、Ctrl+C 也可以）',
];

// Day 3：工具请求确认：先问，下一行就是回答。y / yes 同意，其余拒绝；太长的提示只显示开头，回答 d 分页看全文
setConfirmFn((prompt) => askPaged(prompt, async (question) => {
    out('tool', question);
    return nextAnswer();
}, (page) => out('tool', page)));

/** 执行一条命令；返回 false 表示要退出。 */
function command(line: string): boolean {
    if (line === '/exit') return false;
    if (line === '/help') {
        out('system', HELP.join('\n'));
        out('system', '可用工具：\n' + listTools().map((t) => `  ${t.name}  ${t.description}`).join('\n'));
    } else if (line === '/trace') out('system', traceStatus(true));
    else if (line === '/reset') {
        chat.reset();
        out('system', '（对话记忆已清空）');
    } else out('system', `未知命令：${line}（输入 /help 查看）`);
    return true;
}

async function turn(text: string): Promise<void> {
    const controller = running = new AbortController();
    const print = createPrinter();   // 思考内容变暗，正文绿色，提示灰色
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

// Day 3：行从输入队列里取；队里还有行时不提示，它们马上就处理
for (;;) {
    if (queue.size === 0) typing.prompt(rl);
    const item = await queue.next();
    if (item === EOF) break;
    const line = item.trim();
    if (typing.unseen(line)) out('user', `You › ${line}`);   // 屏幕上还没有的行（管道输入、回复进行中打的）替它打出来，输出才读得懂
    if (line.startsWith('/') && !command(line)) break;
    if (line && !line.startsWith('/')) await turn(line);
}
exit();

// —— 加固：Ctrl+C 与管道、显示细节、退出 ——

/** Ctrl+C：回复进行中 → 取消这一轮；空闲时 → 退出。管道输入时收到 SIGINT 直接走退出流程。 */
function handleSignals(): void {
    rl.on('SIGINT', () => {
        if (!running) return queue.push(EOF);
        running.abort();
        queue.decline();   // Day 3：正在等 [y/N] 就替用户答「否」，免得它吞掉下一行输入
    });
    // SIGTERM、SIGHUP 也走退出流程：shell 命令留下的进程组在 exit 事件里才会被杀掉
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void exit());
    process.stdout.on('error', () => exit());   // 读输出的一方先关了管道（… | head）：安静退出，不打印堆栈
}

/**
 * Day 3：确认问题的回答。管道里的下一行就是回答，回显在 [y/N] 后面；终端里只认 [y/N] 出现之后打的一行（typing.answer），
 * 提前打的行（回复还没出来时敲的 y）留在队里，之后照常当输入处理。
 */
async function nextAnswer(): Promise<string> {
    if (!interactive) out('tool', '[y/N] ', false);
    const item = await (interactive ? typing.answer(queue, rl) : queue.next());
    const answer = item === EOF ? '' : item.trim();
    if (!interactive) out('system', answer);
    return answer;
}

/** 把流式片段打到终端：思考内容变暗（无颜色时以「思考：」开头），正文绿色；思考之后的正文另起一行。 */
function createPrinter() {
    let last = '';
    return (piece: ReplyPiece) => {
        if (piece.type === 'progress') {
            out('tool', `${last === 'progress' ? '' : '\n'}[${piece.text}]`);
        } else if (piece.type === 'notice') {
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

// 退出：说 bye，等输出写完再结束进程。已经在等的时候又来一次（再按 Ctrl+C，或读的一方关了管道、写出错）就立即退出：
// 那时要么用户不想等了，要么已经没有能送到的东西了。退出码已定（process.exitCode）就表示退出流程开始了
function exit(): void {
    if (process.exitCode !== undefined) process.exit();
    process.exitCode = 0;
    out('system', 'bye');
    void exitWhenDrained(0);
}

/**
 * 等 stdout、stderr 里已经写出的内容都交给了系统，再以 code 退出。管道的另一头读得慢时（agent | (sleep 2; cat)），
 * 回复的后半截和 bye 还排在 Node 的写缓冲里，立刻 process.exit 会把它们丢掉。空写的回调排在之前所有写入之后；
 * 读的一方已经关了管道时，回调带着错误马上回来。返回的 Promise 永远不兑现：等着它的代码不会再往下跑。
 */
function exitWhenDrained(code: number): Promise<never> {
    return new Promise(() => {
        let pending = 2;
        const done = () => {
            if (--pending === 0) process.exit(code);
        };
        process.stdout.write('', done);
        process.stderr.write('', done);
    });
}
