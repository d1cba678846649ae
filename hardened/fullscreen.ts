// Day 7：全屏界面前端：把 Tui（tui.ts）接到输入队列、确认提示和用量面板上。
import path from 'node:path';
import type { Chat, ReplyPiece } from './chat.ts';
import type { Color } from './color.ts';
import type { Config } from './config.ts';
import type { FrontEnd } from './frontend.ts';
import { answerMark, askPaged, EOF, queuedNote, type InputQueue } from './input.ts';
import { mcpPanelText, type McpManager } from './mcp-setup.ts';
import { getMemories, memoryBlocks } from './memory.ts';
import { permissionRoot } from './permissions.ts';
import { formatTodos, getTodos } from './planning.ts';
import type { Sessions } from './sessions.ts';
import { activeSkill } from './skills.ts';
import { displayWidth } from './term.ts';
import { Tui } from './tui.ts';
import { CONTEXT_WINDOW, UsageMeter } from './usage.ts';

export interface PanelSource {
    cfg: Config;
    chat: Chat;
    sessions: Sessions;
    usage: UsageMeter;
    instructions: string;   // Day 10：项目说明（AGENTS.md）的内容，面板只显示有没有
    mcp: McpManager;        // Day 15：MCP 服务器的连接状态
}

/** 面板各行（'─ ' 开头的是分节线，约定见 render.ts）。每帧都从状态重新算，不单独存。 */
function panelLines({ cfg, chat, sessions, usage, instructions, mcp }: PanelSource): string[] {
    const context = contextOf(chat.history);
    return [
        `模型 ${cfg.model}`,
        `对话 ${sessions.currentId}`,
        `根目录 ${shortRoot()}`,
        // Day 10：记忆条数、项目说明；Day 11：当前技能
        `记忆 ${getMemories().length} 条 / ${memoryBlocks()} 块`,   // Day 13：记忆切成的块数
        `项目说明 ${instructions ? '已加载' : '无'}`,
        `技能 ${activeSkill()?.name ?? '无'}`,
        `MCP ${mcpPanelText(mcp)}`,   // Day 15：各服务器的状态和工具数
        '─ 上下文',
        `${context.tokens} / ${CONTEXT_WINDOW} tokens`,
        `已用 ${context.percent}%`,
        '─ 本轮',
        `${usage.turn + usage.live} tokens`,
        '─ 累计',
        `${usage.total} tokens`,
        '─ TODO',   // Day 9：规划清单
        ...(getTodos().length ? formatTodos() : ['（还没有任务）']),
    ];
}

export function createFullScreen(
    queue: InputQueue,
    hooks: { onCancel(): boolean; onExit(): void },
    source: PanelSource,
): FrontEnd {
    const tui = new Tui({
        input: process.stdin,
        output: process.stdout,
        onSubmit: (line) => {
            queue.push(line);
            tui.setQueued(queue.size);
        },
        onCancel: () => {
            queue.decline();   // 取消时如果正在等确认，先替用户答「否」，让这一轮能结束
            hooks.onCancel();
        },
        onExit: hooks.onExit,
        panel: () => panelLines(source),
    });
    tui.start();

    return {
        print(color: Color, text: string) { tui.append(text, color); },
        piece(piece: ReplyPiece) {
            if (piece.type === 'progress') tui.append(`[${piece.text}]`, 'tool');
            else if (piece.type === 'notice') tui.append(piece.text, 'system');
            else tui.appendInline(piece.text, piece.type === 'reasoning' ? 'reasoning' : 'model');
        },
        endReply() { tui.renderNow(); },
        echoUser(line: string) {
            tui.setQueued(queue.size);
            tui.append(`You › ${line}`, 'user');
        },
        setBusy(busy: boolean) { tui.setBusy(busy); },
        // 问题钉在输入行上面，过一会儿输入行才变成 [y/N]：只认那之后提交的一行（见 InputQueue.answer），之前排队、
        // 提交的行留着，之后照常处理。太长的提示回答 d 分页看全文
        confirm: (prompt: string) => askPaged(prompt, async (question) => {
            tui.showQuestion(question);
            const item = await queue.answer({
                prompt: () => tui.promptAnswer(),
                typing: () => false,   // 输入行里打了一半的字，promptAnswer() 已经收起来了，答完放回
                early: (line) => { if (line.trim()) tui.append(queuedNote(line), 'system'); },
            });
            const answer = item === EOF ? '' : item;
            tui.answerQuestion(answerMark(answer));
            tui.setQueued(queue.size);
            return answer;
        }, (page) => tui.append(page, 'tool')),
        refresh() { tui.requestRender(); },
        close() { tui.stop(); },
    };
}

// —— 加固：面板每帧重建的开销、太长的根目录 ——

// 面板每帧都重建（流式输出时每秒最多 60 次），而历史只在整条消息进出时才变：
// 按数组对象和长度缓存上下文估算，免得每帧都把整个历史 JSON 序列化一遍
let contextCache = { history: null as unknown, length: -1, value: { tokens: 0, percent: 1 } };
function contextOf(history: unknown[]): { tokens: number; percent: number } {
    if (contextCache.history !== history || contextCache.length !== history.length) {
        contextCache = { history, length: history.length, value: UsageMeter.context(JSON.stringify(history)) };
    }
    return contextCache.value;
}

// 根目录太长会被面板截断，只留最后一级
function shortRoot(): string {
    const root = permissionRoot();
    return displayWidth(root) > 18 ? '…/' + path.basename(root) : root;
}
