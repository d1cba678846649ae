// Day 1：输入队列。打字或管道送来的行在回复进行中先排队，按顺序处理，绝不丢弃。
export const EOF = Symbol('EOF');
export type InputItem = string | typeof EOF;

export class InputQueue {
    private items: InputItem[] = [];
    private waiters: ((item: InputItem) => void)[] = [];

    push(item: InputItem): void {
        const waiter = this.waiters.shift();
        if (waiter) waiter(item);
        else this.items.push(item);
    }

    /** 取下一项；队列空着就等下一次 push。 */
    next(): Promise<InputItem> {
        const item = this.items.shift();
        if (item === undefined) return new Promise((resolve) => this.waiters.push(resolve));
        return Promise.resolve(item);
    }

    get size(): number {
        return this.items.length;
    }
}
