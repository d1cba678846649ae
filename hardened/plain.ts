// Day 7：行模式前端，stdin 或 stdout 不是终端时用：就是 Day 4 的命令行 REPL，接上前端接口。
import readline from 'node:readline';
import type { ReplyPiece } from './chat.ts';
import { colorEnabled, err, out, paint, type Color } from './color.ts';
import type { FrontEnd } from './frontend.ts';
import { askPaged, EOF, queuedNote, type InputQueue } from './input.ts';

export function createPlain(queue: InputQueue, hooks: { onCancel(): boolean; onExit(): void }): FrontEnd & { prompt(): void } {
    const interactive = Boolean(process.stdin.isTTY);
    // 限制：终端里 readline 随打随回显，回复进行中打的字会插进正在流出的回复里（行照常排队，轮到时处理）；要干净的屏幕用全屏界面
    const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
    rl.setPrompt(paint('user', 'You › '));
    rl.on('line', (line) => queue.push(line));
    rl.on('close', () => queue.push(EOF));
    // Ctrl+C：回复进行中 → 取消这一轮；空闲时 → 退出
    rl.on('SIGINT', () => {
        if (!hooks.onCancel()) return hooks.onExit();
        queue.decline();   // 正在等 [y/N] 就替用户答「否」，免得它吞掉下一行输入
    });
    endOnClosedPipe(queue, hooks);   // … | head 先关了管道：取消这一轮、结束输入
    let last = '';

    return {
        // 还有排着队的行就不提示，它们马上就处理；true：光标留在回复进行中已经打了一半的字后面
        prompt() { if (interactive && queue.size === 0) rl.prompt(true); },
        print(color: Color, text: string) {
            if (color === 'error') err('error', text);
            else out(color, text);
        },
        piece(piece: ReplyPiece) {
            // 思考内容变暗（无颜色时以「思考：」开头），正文绿色，进度行黄色
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
        },
        endReply() {
            process.stdout.write('\n');
            last = '';
        },
        echoUser(line: string) { if (!interactive) out('user', `You › ${line}`); },   // 管道输入不回显：替它打出来，输出才读得懂
        // 管道里下一行就是回答；终端里要等用户打一行。y / yes 同意，其余拒绝；太长的提示只显示开头，回答 d 分页看全文
        confirm: (prompt: string) => askPaged(prompt, async (question) => {
            out('tool', question);
            return nextAnswer(queue, rl, interactive);
        }, (page) => out('tool', page)),
        setBusy() {},
        refresh() {},
        close() { rl.close(); },
    };
}

// —— 加固：输出管道被关、提问前打的字不算回答 ——

// 读输出的一方先关了管道（… | head）：取消这一轮、结束输入，由入口走正常的退出流程（先保存）。
// 之后的写入还会再出错，只处理第一次
function endOnClosedPipe(queue: InputQueue, hooks: { onCancel(): boolean }): void {
    let closed = false;
    process.stdout.on('error', () => {
        if (closed) return;
        closed = true;
        hooks.onCancel();
        queue.push(EOF);
    });
}

// 管道里的下一行就是回答，回显在 [y/N] 后面；终端里只认 [y/N] 出现之后打的一行（InputQueue.answer），
// 提前打的行留在队里，之后照常处理
async function nextAnswer(queue: InputQueue, rl: readline.Interface, interactive: boolean): Promise<string> {
    if (!interactive) {
        out('tool', '[y/N] ', false);
        const item = await queue.next();
        const answer = item === EOF ? '' : item.trim();
        out('system', answer);
        return answer;
    }
    let asked = false;   // [y/N] 已经显示
    const ask = () => {
        out('tool', '[y/N] ', false);
        asked = true;
    };
    const item = await queue.answer({
        prompt: ask,
        typing: () => rl.line !== '',   // [y/N] 出现时已经打了一半的那一行，回车后也只排队
        early(line) {
            if (line.trim()) out('system', queuedNote(line));
            if (asked) ask();   // 回车把光标带到了下一行：重新显示 [y/N]
        },
    });
    return item === EOF ? '' : item.trim();
}
