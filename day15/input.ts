// Day 3：输入队列。readline 读到的每一行都先进队，主循环和确认问题都从这一个队里取：哪一行归谁不会乱，一行也不丢。
import type { Interface } from 'node:readline';
import { out } from './color.ts';

export const EOF = Symbol('EOF');   // 输入结束：Ctrl+D，或者管道关了
export type InputItem = string | typeof EOF;

export class InputQueue {
    private items: InputItem[] = [];
    private waiter: ((item: InputItem) => void) | null = null;   // 同一时刻只有一个读者：主循环，或者一轮中间的确认问题

    push(item: InputItem): void {
        const waiter = this.waiter;
        this.waiter = null;
        // EOF 一直留在队里：之后谁来取都还是 EOF。确认问题取到它算「否」，主循环取到它就退出，谁也不会永远等下去
        if (!waiter || item === EOF) this.items.push(item);
        waiter?.(item);
    }

    /** 取下一项：先取排着的，没有就等。 */
    next(): Promise<InputItem> {
        const item = this.items[0];
        if (item === undefined) return new Promise((resolve) => { this.waiter = resolve; });
        if (item !== EOF) this.items.shift();
        return Promise.resolve(item);
    }

    /** 只等此刻之后才进队的一项，排着的行留在原处；输入已经结束就是 EOF。 */
    nextFresh(): Promise<InputItem> {
        if (this.items.includes(EOF)) return Promise.resolve(EOF);
        return new Promise((resolve) => { this.waiter = resolve; });
    }

    get size(): number {
        return this.items.filter((item) => item !== EOF).length;
    }
}

// 问题显示之后这么短的时间里到达的行，不可能是读了问题才打的：它是问题出现之前打的，只是晚了一点才交到 Agent 手里
// （忙着的机器上，终端会晚一点才把按键送过来）。300 ms 比任何人读完一个问题都快。sudo 提问前先清掉预先打的字、
// 浏览器的安全对话框出现后按钮先禁用一会儿，防的是同一件事：一个提前打的 y 批准了你还没看见的命令
export const SETTLE_MS = 300;   // Day 7：全屏界面的确认用同一个窗口

/**
 * 确认问题的回答（原文）。管道里下一行就是回答（脚本的行为因此是确定的）。终端里只有读了问题之后打的一行算数：
 * 排着的行、问题出现时已经打了一半的行、问题出现后 SETTLE_MS 之内到达的行，都是提前打的，照常排队，之后当作一句话处理。
 */
export async function readAnswer(queue: InputQueue, rl: Interface): Promise<string> {
    if (!rl.terminal) {
        process.stdout.write(rl.getPrompt());   // 管道里 readline 读完输入就关了；关了以后再 prompt()，Node 24 会抛错
        const item = await queue.next();
        const answer = item === EOF ? '' : item;
        out('system', answer);   // 管道输入不回显：把回答打在 [y/N] 后面，记录才读得懂
        return answer;
    }
    if (queue.size > 0) out('tool', `（问题出现前打的 ${queue.size} 行已排队，不算回答，这一轮结束后照常处理）`);
    rl.prompt(true);   // true：提问时已经打了一半的字留在光标前
    const shown = performance.now();
    let started = rl.line;   // 提问时已经打在行里、还没按回车的字
    for (;;) {
        const item = await queue.nextFresh();
        if (item === EOF) return '';
        const early = performance.now() - shown < SETTLE_MS || (started !== '' && item.startsWith(started));
        started = '';
        if (!early || item.trim() === '') return item;   // 提前按的回车就是「否」：只会更安全
        queue.push(item);
        out('tool', `（「${item}」是问题出现前打的，已排队，这一轮结束后当作一句话发出；请重新回答）`);
        rl.prompt(true);   // 再显示一次 [y/N]
    }
}
