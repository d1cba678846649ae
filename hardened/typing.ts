// —— 加固：回复进行中打的字 ——
// Day 1：终端里 readline 自己回显打的字（连同移动光标、重画这一行）。回复进行中也照样回显的话，打的字就插进了正在流出的
// 回复里，轮到那一行时屏幕上又没有它的 You › …。所以 readline 往屏幕写的一切都先经过这道闸，只在等输入时放行；
// 回复进行中打的行照样按回车排队，只是先不显示，轮到它时由 unseen() 告诉调用方替它打出 You › …（管道输入的行也一样，
// 它们从来不回显）。Ctrl+C 照常由 readline 收到：闸只管输出。
// 限制：回复进行中打了一长串折到下一行、又没按回车的字，提示符重画时会擦掉它上面的一行。
import type { Interface } from 'node:readline';
import { Writable } from 'node:stream';
import { out } from './color.ts';
import { queuedNote, type InputItem, type InputQueue } from './input.ts';   // Day 3：[y/N] 的回答从输入队列里取

let open = false;   // 正在等输入：readline 写的照常显示
let ahead = 0;      // 闸关着时按了回车、还没轮到的非空行（管道输入的行都算在这里）

// readline 的 output 可以是任何可写流；有 columns、会发 resize 事件，折行和窗口变化时的重画就和直接写终端一样
const screen = new Writable({
    decodeStrings: false,
    write(chunk, _encoding, done) {
        if (open) process.stdout.write(chunk);
        done();
    },
});
Object.defineProperty(screen, 'columns', { get: () => process.stdout.columns });
process.stdout.on('resize', () => screen.emit('resize'));

/** 交给 readline 的 output 是 typing.screen；它的 'line' 事件接 typing.submitted。一个进程只有一个 readline，所以只有一道闸。 */
export const typing = {
    screen,
    /** readline 的 'line' 事件：闸开着，这一行就是刚在提示符后打的（屏幕上已经有了），之后关闸；关着就是提前打的。 */
    submitted(line: string): void {
        if (open) open = false;
        else if (line.trim()) ahead++;
    },
    /** 显示提示符、开闸等输入。管道输入不提示；还有提前打好的行时也不提示，它们马上就处理。 */
    prompt(rl: Interface): void {
        if (!rl.terminal || ahead > 0) return;
        open = true;
        rl.prompt(true);   // true：光标留在回复进行中已经打了一半的字后面
    },
    /** 开始处理一行时问：它还不在屏幕上吗（提前打的、管道输入的）？是的话调用方替它打出 You › …。 */
    unseen(line: string): boolean {
        if (!line || ahead === 0) return false;
        ahead--;
        return true;
    },
    /**
     * Day 3：终端里等 [y/N] 的回答（哪一行算回答见 InputQueue.answer）。[y/N] 出现了才开闸，回显你打的回答；
     * 提问之前打的行显示成「已排队」，轮到它时照样替它打出 You › …。答完（或 Ctrl+C、输入结束）再关上闸。
     */
    async answer(queue: InputQueue, rl: Interface): Promise<InputItem> {
        let asked = false;   // [y/N] 已经显示
        const ask = () => {
            out('tool', '[y/N] ', false);
            asked = open = true;
        };
        try {
            return await queue.answer({
                prompt: ask,
                typing: () => rl.line !== '',
                early(line) {
                    if (line.trim()) {
                        // [y/N] 出现之后才回车的一行（开始打它时还没有 [y/N]）回显过了，submitted() 当它已在屏幕上；
                        // 可它要等轮到时才当作一句话处理，那时还得替它打出 You › …
                        if (asked) ahead++;
                        out('system', queuedNote(line));
                    }
                    if (asked) ask();   // 回车把光标带到了下一行：重新显示 [y/N]、开闸
                },
            });
        } finally {
            open = false;
        }
    },
};
