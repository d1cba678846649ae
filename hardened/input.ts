// Day 3：输入队列。打字或管道送来的行先排队，按顺序处理，绝不丢弃；确认问题也从这里取「下一行」作答。
export const EOF = Symbol('EOF');
export type InputItem = string | typeof EOF;

/** 确认问题的回答：y 或 yes（不分大小写）算同意，其余一律拒绝。两个前端都用这一条。 */
export const isYes = (answer: string): boolean => /^(y|yes)$/i.test(answer.trim());

export class InputQueue {
    private items: InputItem[] = [];
    private waiters: ((item: InputItem) => void)[] = [];

    push(item: InputItem): void {
        if (this.asking) return this.offer(this.asking, item);   // 终端里正在等 [y/N] 的回答（见分隔线以下）
        const waiter = this.waiters.shift();
        if (waiter) waiter(item);
        else this.items.push(item);
    }

    /** 取下一项；EOF 取出后留在队首，之后每次都还是 EOF（确认提示遇到 EOF 也能得到答案）。 */
    next(): Promise<InputItem> {
        const item = this.items[0];
        if (item === undefined) return new Promise((resolve) => this.waiters.push((i) => resolve(this.keepEof(i))));
        return Promise.resolve(this.keepEof(this.items.shift()!));
    }

    get size(): number {
        return this.items.filter((i) => i !== EOF).length;
    }

    // —— 加固：EOF 留在队首；终端里只认 [y/N] 出现之后打的回答；长的确认提示 ——

    private keepEof(item: InputItem): InputItem {
        if (item === EOF && this.items[0] !== EOF) this.items.unshift(EOF);
        this.last = item;   // Day 8
        return item;
    }

    private asking: Asking | null = null;   // 终端里正在等的一个 [y/N]

    /**
     * Day 3：终端里等 [y/N] 的回答（问题已经显示）。已经排队的行、问题显示之后 ANSWER_SETTLE_MS 之内到的行、[y/N] 出现时
     * 已经打了一半的那一行，都是提问之前打的：照常排队、之后当作一句话处理，交给 hooks.early 告诉用户。等够了才调用
     * hooks.prompt() 显示 [y/N]，之后打的第一行才是回答。输入已经结束就是 EOF；decline() 给的是 ''，也就是「否」。
     */
    answer(hooks: AnswerHooks): Promise<InputItem> {
        if (this.items.includes(EOF)) return Promise.resolve((this.last = EOF));
        for (const item of this.items) if (item !== EOF) hooks.early(item);
        return new Promise((resolve) => {
            const asking: Asking = { hooks, resolve, open: false, begun: false };
            this.asking = asking;
            // 计时到了，再让事件循环读一遍已经到了的输入（setImmediate 排在下一次读 I/O 之后）才显示 [y/N]：
            // 机器忙时计时器和按键都会晚到，这样 [y/N] 出现之前已经到了的字，一定算提问之前打的
            setTimeout(() => setImmediate(() => {
                if (this.asking !== asking) return;   // 已经有了结果：Ctrl+C 答了否，或者输入结束了
                hooks.prompt();
                asking.begun = hooks.typing();
                asking.open = true;
            }), ANSWER_SETTLE_MS);
        });
    }

    /** Ctrl+C、Esc 取消这一轮时调用：正在等的 [y/N]（还没显示出来也算）马上得到 ''，即「否」。没在等就什么也不做。 */
    decline(): void {
        if (this.asking) this.settle(this.asking, '');
    }

    // 等回答时来了一项：[y/N] 出现之前到的行、出现时已经开始打的那一行，照常排队；之后的一行就是回答，EOF 也结束等待
    private offer(asking: Asking, item: InputItem): void {
        if (item !== EOF && (!asking.open || asking.begun)) {
            asking.begun = false;
            this.items.push(item);
            asking.hooks.early(item);
            return;
        }
        if (item === EOF) this.items.push(EOF);   // 排在已经排队的行之后：它们照常处理完才退出
        this.settle(asking, item);
    }

    private settle(asking: Asking, item: InputItem): void {
        this.asking = null;
        asking.resolve((this.last = item));
    }

    /** Day 8：最近交出去的一项（next、answer）。信任问题据此分辨「终端里明确答了 n」和空回车、Ctrl+C、输入结束。 */
    last: InputItem | undefined;

    /** Day 8：看下一项但不取走（还没有就等它来）。管道里不是回答的一行，信任问题不拿去当回答，留给之后当输入。 */
    peek(): Promise<InputItem> {
        if (this.items.length > 0) return Promise.resolve(this.items[0]);
        return new Promise((resolve) => this.waiters.push((item) => {
            this.items.unshift(item);
            resolve(item);
        }));
    }
}

// Day 3：问题显示出来以后，先等这么久才显示 [y/N]、才收回答。人看完一个问题再按键，远比这慢；比这还快到的按键只能是
// 提问之前就打好的——机器忙的时候，终端常常晚一点才把按键送到。别的工具也这样防：sudo 提问之前先清掉提前打的字，
// 浏览器的安全对话框出现后，按钮先禁用一会儿。
const ANSWER_SETTLE_MS = 500;

/** 终端里等回答时，前端替队列做的三件事（见 InputQueue.answer）。 */
export interface AnswerHooks {
    prompt(): void;              // 显示 [y/N]
    typing(): boolean;           // 输入行里有没有打了还没回车的字
    early(line: string): void;   // 提问之前打的一行（也可能是空行）排进了队：告诉用户
}

interface Asking {
    hooks: AnswerHooks;
    resolve(item: InputItem): void;
    open: boolean;    // [y/N] 已经显示：之后打的一行是回答
    begun: boolean;   // [y/N] 出现时那一行已经打了一半：它回车后也只是排队
}

/** 提问之前打的一行怎么告诉用户：它不算回答，排在队里，之后当作一句话处理。太长的只显示开头。 */
export function queuedNote(line: string): string {
    const chars = Array.from(line.trim());
    const shown = chars.length > 40 ? `${chars.slice(0, 40).join('')}…` : chars.join('');
    return `（问题出现前打的，已排队，不算回答：${shown}）`;
}

// ---- 长的确认提示：只显示开头和大小，回答 d 分页看全文 ----
// 确认提示（命令、diff、网址、信任问题……）可能很长：1101 行的命令会把自己的第一行挤出全屏界面 1000 行的日志，
// 行模式下也会滚出终端的回滚区，用户看不到真正要执行的开头就答了 y。所以多于 HEAD_LINES + 1 行、或者有一行超过
// LINE_CHARS 个字符的提示，问的时候先说全文的行数和字符数，再显示开头 HEAD_LINES 行（长行截断）和最后一行（通常就是问题）；
// 回答 d 就按页（每页 PAGE_LINES 行，一个字也不截）显示全文再问一次，答 y 之前每一行都看得到。两个前端都经过这里。
const HEAD_LINES = 20;
const LINE_CHARS = 400;
const PAGE_LINES = 200;

/** 问一个确认问题：ask 显示问题、返回回答的原文，show 显示一页全文。回答 d 显示下一页再问，其余按 isYes 决定。 */
export async function askPaged(prompt: string, ask: (question: string) => Promise<string>, show: (page: string) => void): Promise<boolean> {
    const question = headOf(prompt);
    const pages = pagesOf(prompt);
    for (let page = 0; ; page = (page + 1) % pages.length) {
        const answer = await ask(question);
        if (answerMark(answer) !== 'd') return isYes(answer);
        show(pages[page]);
    }
}

/** 回答记成哪个字母：y 同意，d 看全文，其余一律是 n。全屏界面把它接在问题后面记进日志。 */
export function answerMark(answer: string): 'y' | 'n' | 'd' {
    if (isYes(answer)) return 'y';
    return answer.trim().toLowerCase() === 'd' ? 'd' : 'n';
}

function headOf(prompt: string): string {
    const lines = prompt.split('\n');
    if (lines.length <= HEAD_LINES + 1 && lines.every((line) => line.length <= LINE_CHARS)) return prompt;
    const size = `（全文共 ${lines.length} 行 / ${prompt.length} 字符，这里只显示了一部分；回答 d 分页查看全文）`;
    const skipped = lines.length - HEAD_LINES - 1;
    const last = skipped > 0 ? [`…（中间 ${skipped} 行没有显示）`, lines[lines.length - 1]] : lines.slice(HEAD_LINES);
    return [size, ...lines.slice(0, HEAD_LINES), ...last].map(cut).join('\n');
}

// 长行截到 LINE_CHARS 个字符，不切开代理对
function cut(line: string): string {
    if (line.length <= LINE_CHARS) return line;
    const end = /[\ud800-\udbff]/.test(line[LINE_CHARS - 1]) ? LINE_CHARS - 1 : LINE_CHARS;
    return `${line.slice(0, end)}…`;
}

function pagesOf(prompt: string): string[] {
    const lines = prompt.split('\n');
    const total = Math.ceil(lines.length / PAGE_LINES);
    const pages: string[] = [];
    for (let i = 0; i < total; i++) {
        const from = i * PAGE_LINES;
        const to = Math.min(lines.length, from + PAGE_LINES);
        pages.push([`（全文第 ${i + 1}/${total} 页：第 ${from + 1}–${to} 行，共 ${lines.length} 行）`, ...lines.slice(from, to)].join('\n'));
    }
    return pages;
}
