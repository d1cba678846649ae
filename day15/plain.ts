// Day 7：行模式前端，stdin 或 stdout 不是终端时用（管道、重定向、CI、编辑器的控制台）：就是第 4 天的 REPL，搬到 FrontEnd 接口后面。
import readline from 'node:readline';
import type { ReplyPiece } from './chat.ts';
import { colorEnabled, err, out, paint } from './color.ts';
import type { FrontEnd, Hooks } from './frontend.ts';
import { EOF, readAnswer, type InputQueue } from './input.ts';

export function createPlain(queue: InputQueue, hooks: Hooks): FrontEnd {
    const interactive = Boolean(process.stdin.isTTY);
    const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
    const YOU = paint('user', 'You › ');
    rl.setPrompt(YOU);
    rl.on('line', (line) => queue.push(line));
    rl.on('close', () => queue.push(EOF));
    rl.on('SIGINT', hooks.interrupt);   // 终端里 Ctrl+C 是 readline 收到的一个按键（管道输入时它是信号，index.ts 处理）
    let last = '';

    return {
        ready() {
            if (interactive) rl.prompt();
        },
        print(color, text) {
            if (color === 'error') err('error', text);
            else out(color, text);
        },
        // 思考内容变暗（没有颜色时前面加一行「思考：」），思考之后的正文另起一行，进度行黄色；用量只有全屏界面显示
        piece(piece: ReplyPiece) {
            if (piece.type === 'usage') return;
            if (piece.type === 'progress') {
                out('tool', `${last === 'progress' ? '' : '\n'}[${piece.text}]`);
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
        echo(line) {
            if (!interactive) out('user', `You › ${line}`);   // 管道输入不回显：替它打出来，输出才读得懂
        },
        async confirm(question) {
            out('tool', question);
            rl.setPrompt(paint('tool', '[y/N] '));   // readAnswer() 显示它，规则见第 3 天
            const answer = await readAnswer(queue, rl);
            rl.setPrompt(YOU);
            return answer;
        },
        setBusy() {},
        close() {
            rl.close();
        },
    };
}
