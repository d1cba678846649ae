// Day 3：输入队列。打字或管道送来的行先排队，按顺序处理，绝不丢弃；确认问题也从这里取「下一行」作答。
export const EOF = Symbol('EOF');
export type InputItem = string | typeof EOF;

/** 确认问题的回答：y 或 yes（不分大小写）算同意，其余一律拒绝。两个前端都用这一条。 */
export const isYes = (answer: string): boolean => /^(y|yes)$/i.test(answer.trim());

export class InputQueue {
    private items: InputItem[] = [];
    private waiters: ((item: InputItem) => void)[] = [];

    push(item: InputItem): void {
        const waiter = this.waiters.shift();
        if (waiter) waiter(item);
        else this.items.push(item);
    }

    /** 取下一项；EOF 取出后留在队首，之后每次都还是 EOF（确认提示遇到 EOF 也能得到答案）。 */
    next(): Promise<InputItem> {
        const item = this.items[0];
        if (item === undefined) return new Promise((resolve) => this.waiters.push((i) => resolve(this.keep(i))));
        return Promise.resolve(this.keep(this.items.shift()!));
    }

    /** Day 4：终端里回答 [y/N] 用：只取此刻之后 push 的一项，已经排队的行留在原处；输入已经结束就是 EOF。 */
    nextFresh(): Promise<InputItem> {
        if (this.items.includes(EOF)) return Promise.resolve(EOF);
        return new Promise((resolve) => this.waiters.push((item) => {
            if (item === EOF) this.items.push(EOF);   // 排在已经排队的行之后：它们照常处理完才退出
            resolve(item);
        }));
    }

    get size(): number {
        return this.items.filter((i) => i !== EOF).length;
    }

    private keep(item: InputItem): InputItem {
        if (item === EOF && this.items[0] !== EOF) this.items.unshift(EOF);
        return item;
    }
}
