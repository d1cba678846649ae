// npm run check 的一个检查长什么样：每一天的检查文件（scripts/check/days/dayNN.ts）导出 checks: Check[]。

export interface Check {
    day: number;
    name: string;                        // 学习者的说法，如「多轮对话：第二轮请求带着第一轮的问答」
    hint: string;                        // 不通过时给的一条提示（中文，可操作）
    section: string;                     // 要重读的章节，如 'day01/README.md#第-1-天…'（锚点按 GitHub 的标题锚点规则，要真的存在）
    run(entry: string): Promise<void>;   // entry = 学习者 index.ts 的绝对路径；不通过时 throw new Miss(expected, actual)
}

/** 检查不通过：期望什么、实际看到了什么（请求或线上摘录，由报告截短）。别的异常算检查自己出错，照样记为不通过。 */
export class Miss extends Error {
    constructor(readonly expected: string, readonly actual: string) {
        super(`期望：${expected}\n实际：${actual}`);
        this.name = 'Miss';
    }
}
