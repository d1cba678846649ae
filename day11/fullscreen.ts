// Day 7：全屏界面前端：把 Screen（screen.ts）接到输入队列、确认问题和用量面板上。
import path from 'node:path';
import type { Chat } from './chat.ts';
import { err, out } from './color.ts';
import type { Config } from './config.ts';
import type { FrontEnd, Hooks } from './frontend.ts';
import { EOF, SETTLE_MS, type InputQueue } from './input.ts';
import { permissionRoot } from './permissions.ts';
import { formatTodos } from './planning.ts';   // Day 9–11：面板里的 TODO 清单和启用着的技能
import { Screen } from './screen.ts';
import type { Sessions } from './sessions.ts';
import { activeSkill } from './skills.ts';
import { width } from './term.ts';

const CONTEXT_WINDOW = 64000;   // 面板里「上下文」的百分比按这个窗口算（DeepSeek 是 64K；换了模型改这里）

/** 面板要显示的东西从哪来。 */
export interface PanelSource {
    cfg: Config;
    chat: Chat;
    sessions: Sessions;
}

export function createFullScreen(queue: InputQueue, hooks: Hooks, source: PanelSource): FrontEnd {
    const usage = { turn: 0, total: 0 };   // 服务商报的用量：这一轮、从启动到现在
    const screen = new Screen({
        submit(line) {
            queue.push(line);
            screen.set({ queued: queue.size });
        },
        interrupt: hooks.interrupt,
        quit: hooks.quit,
        panel: () => panelLines(source, usage),
    });
    screen.start();
    // 关掉终端窗口时 stdin 读到结尾（原始模式下 Ctrl+D 只是一个字节，读到结尾只会是终端没了）：和 Ctrl+D 一样走退出流程。
    // 只等 SIGHUP 不够：stdin 一关，进程没事可做就自己结束了，等不到信号，对话也没保存
    process.stdin.on('end', hooks.quit);
    let closed = false;

    return {
        ready() {},
        print(color, text) {
            if (!closed) screen.append(text, color);
            else if (color === 'error') err('error', text);   // 终端已经还原：退出时的保存、bye 直接写到普通终端上
            else out(color, text);
        },
        piece(piece) {
            if (piece.type === 'usage') {
                usage.turn += piece.tokens;
                usage.total += piece.tokens;
                screen.refresh();
            } else if (piece.type === 'progress') screen.append(`[${piece.text}]`, 'tool');
            else screen.append(piece.text, piece.type === 'reasoning' ? 'reasoning' : 'model', true);
        },
        endReply: () => screen.endReply(),
        echo(line) {
            screen.set({ queued: queue.size });
            screen.append(`You › ${line}`, 'user');
        },
        confirm: (question) => answer(question, queue, screen),
        setBusy(busy) {
            if (busy) usage.turn = 0;
            screen.set({ busy });
        },
        close() {
            closed = true;
            screen.stop();
        },
    };
}

/**
 * 全屏界面里的确认，规则和第 3 天行模式的 readAnswer() 一样：只有问题出现 SETTLE_MS 之后提交的一行算回答。
 * 问题出现时输入行里打了一半的字先收起来（答完放回）；窗口之内提交的行照常排队，这一轮结束后当作一句话处理；
 * 窗口结束时输入行里又打的字也收起来——晚到的按键同样是问题出现之前打的。空行（包括 Ctrl+C 替你放进来的）马上算「否」。
 */
async function answer(question: string, queue: InputQueue, screen: Screen): Promise<string> {
    if (queue.size > 0) screen.append(`（问题出现前打的 ${queue.size} 行已排队，不算回答，这一轮结束后照常处理）`, 'tool');
    screen.append(question, 'tool');
    screen.ask();
    const shown = performance.now();
    const settle = setTimeout(() => screen.ask(), SETTLE_MS);
    let reply = '';
    for (;;) {
        const item = await queue.nextFresh();
        if (item === EOF) break;
        if (performance.now() - shown >= SETTLE_MS || item.trim() === '') {
            reply = item;
            break;
        }
        queue.push(item);
        screen.set({ queued: queue.size });
        screen.append(`（「${item}」是问题出现前打的，已排队，这一轮结束后当作一句话发出；请重新回答）`, 'tool');
    }
    clearTimeout(settle);
    screen.append(`[y/N] ${reply}`, 'tool');   // 回答记在问题下面
    screen.answered();
    screen.set({ queued: queue.size });
    return reply;
}

/** 面板：每画一帧从状态重新算一遍。上下文是按历史的 JSON 估的（约 2 个字符 1 个 token），本轮、累计是服务商报的。 */
function panelLines({ cfg, chat, sessions }: PanelSource, usage: { turn: number; total: number }): string[] {
    const context = Math.ceil(JSON.stringify(chat.history).length / 2);
    const root = permissionRoot();
    return [
        `模型 ${cfg.model}`,
        `对话 ${sessions.currentId}`,
        `根目录 ${width(root) > 18 ? `…/${path.basename(root)}` : root}`,
        '',
        '上下文',
        `  ${context} / ${CONTEXT_WINDOW} tokens`,
        `  已用 ${Math.max(1, Math.ceil((context / CONTEXT_WINDOW) * 100))}%`,
        '本轮',
        `  ${usage.turn} tokens`,
        '累计',
        `  ${usage.total} tokens`,
        // Day 9–11：启用着的技能、TODO 清单。每次工具调用之后（进度行）都重画一帧，清单跟着变
        ...(activeSkill() ? ['', `技能 ${activeSkill()!.name}`] : []),
        ...(formatTodos().length ? ['', 'TODO', ...formatTodos()] : []),
    ];
}
