// —— 加固：一台服务器的日志、行模式的回显、死因里的 stderr ——
// Day 15：一台 MCP 服务器的日志：它的 stderr 和客户端自己的记录（丢弃的行、翻页保护……），留最近 50 行给 /mcp，
// 行模式下经 echo 回显；服务器死掉时，从 stderr 里挑出说明原因的几行。
import { truncateOutput } from './tools.ts';

export type McpLogLine = { text: string; fromServer: boolean };   // fromServer 为 false：客户端自己的记录

const LOG_LINES = 50;
const LOG_LINE_CHARS = 1000;

export class ServerLog {
    // 最近 50 行，满了以后从 head 处覆盖最旧的一行
    private readonly ring: McpLogLine[] = [];
    private head = 0;
    // 还没回显的行（hold 到 release 之间）：服务器在 stdout 上开口之前写的都先不回显。启动就崩溃的服务器（脚本路径写错……）
    // 因此不会把 Node 十几行的调用栈刷到屏幕上，屏幕上只有「启动失败」那一行；这些行照样在日志（/mcp）和协议追踪里
    private held: string[] | undefined;
    private readonly echo: (line: string) => void;

    constructor(echo: (line: string) => void) { this.echo = echo; }

    get lines(): McpLogLine[] {
        return [...this.ring.slice(this.head), ...this.ring.slice(0, this.head)];
    }

    // 一行最多 1000 个字符：只有超长的才交给 truncateOutput（它截断前先脱敏，逐行都做，刷屏的日志就太慢了）
    add(text: string, fromServer: boolean): void {
        const line = text.length > LOG_LINE_CHARS ? truncateOutput(text, LOG_LINE_CHARS) : text;
        if (this.ring.length < LOG_LINES) {
            this.ring.push({ text: line, fromServer });
        } else {
            this.ring[this.head] = { text: line, fromServer };
            this.head = (this.head + 1) % LOG_LINES;
        }
        if (!this.held) this.echo(line);
        else if (this.held.push(line) > LOG_LINES) this.held.shift();   // 攒着的也只留最近 50 行
    }

    /** 新启动的服务器：先攒着，不回显。 */
    hold(): void {
        this.held = [];
    }

    /** 服务器在 stdout 上开口了：攒着的行回显出来，之后的行随到随显。 */
    release(): void {
        const lines = this.held ?? [];
        this.held = undefined;
        for (const line of lines) this.echo(line);
    }

    /** 服务器死了的原因，带上 stderr 里说明原因的几行。 */
    withStderr(reason: string): string {
        const tail = meaningfulStderr(this.lines.filter((l) => l.fromServer).map((l) => l.text)).join(' | ');
        return tail ? `${reason}；stderr：${tail}` : reason;
    }

    /** /mcp 显示的最近 5 行：stderr 里的调用栈和收尾行不显示（完整的在协议追踪里），客户端自己的记录都显示。 */
    recent(): string[] {
        return this.lines.filter((l) => !l.fromServer || !noise(l.text)).slice(-5).map((l) => l.text);
    }
}

// 服务器临死前的 stderr 里挑出说明原因的几行。Node 的报错以调用栈、{ code…, requireStack… }、Node.js v20 收尾，
// 最后几行恰恰没用：先取像错误的行（Cannot find module…，调用栈除外）；都不像，就去掉噪声行后取最后三行
const STACK = /^\s+at |^node:internal\//;
const NOISE = /^\s*$|^\s*\^+\s*$|^\s*[{}[\]],?$|^\s+[\w$]+: .*,?$|^\s+throw |^Node\.js v\d/;
const ERRORISH = /error|cannot|not found|exception|denied|失败|错误|找不到/i;

export function meaningfulStderr(lines: string[]): string[] {
    const errors = lines.filter((line) => !STACK.test(line) && ERRORISH.test(line));
    if (errors.length > 0) return errors.slice(0, 3);
    return lines.filter((line) => !noise(line)).slice(-3);
}

const noise = (line: string): boolean => STACK.test(line) || NOISE.test(line);
