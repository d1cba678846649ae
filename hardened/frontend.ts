// Day 7：两个前端（全屏界面、行模式 REPL）共同的接口。index.ts 只和这个接口打交道。
import type { ReplyPiece } from './chat.ts';
import type { Color } from './color.ts';

export interface FrontEnd {
    print(color: Color, text: string): void;     // 整行输出（命令结果、错误、提示）
    piece(piece: ReplyPiece): void;              // 流式片段：模型文字、思考、进度行、提示
    endReply(): void;                            // 一次回复结束（换行、最后一帧）
    echoUser(line: string): void;                // 开始处理一行输入时回显 `You › LINE`
    confirm(prompt: string): Promise<boolean>;   // 确认提示：由输入队列里的下一行回答
    setBusy(busy: boolean): void;                // 一轮开始/结束：全屏界面据此决定 Esc、Ctrl+C 是取消还是退出
    refresh(): void;                             // 状态变了（用量、对话名……），全屏界面据此刷新面板
    close(): void;                               // 离开前端（全屏界面恢复终端）；之后的输出直接写到普通终端
}
