// Day 7：两个前端（全屏界面、行模式）共同的接口。index.ts 只和这个接口打交道：命令、确认、退出流程都只写一份。
import type { ReplyPiece } from './chat.ts';
import type { Color } from './color.ts';

export interface FrontEnd {
    ready(): void;                               // 等下一行输入：行模式显示 You ›（全屏界面的输入行一直在）
    print(color: Color, text: string): void;     // 一整段输出：命令的结果、错误、提示
    piece(piece: ReplyPiece): void;              // 流式回复的一块：文字、思考、进度行、用量
    endReply(): void;                            // 一次回复结束
    echo(line: string): void;                    // 开始处理一行输入：把它记在屏幕上（行模式只在管道里）
    confirm(question: string): Promise<string>;  // 确认问题：显示问题，返回回答的原文（同意不同意由 index.ts 判断）
    setBusy(busy: boolean): void;                // 一轮开始、结束：全屏界面据此显示「回复中」，决定 Ctrl+C 是取消还是退出
    close(): void;                               // 离开前端：全屏界面恢复终端。之后的输出直接写到普通终端上
}

/** 前端按到 Ctrl+C、Ctrl+D 时交给入口的两件事。 */
export interface Hooks {
    interrupt(): void;   // Ctrl+C：回复进行中取消这一轮（正在等 [y/N] 就替你答「否」），空闲时退出
    quit(): void;        // Ctrl+D：取消进行中的一轮，然后退出
}
