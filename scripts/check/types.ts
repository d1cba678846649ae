// npm run check 的一个检查长什么样：每一天的检查文件（scripts/check/days/dayNN.ts）导出 checks: Check[]。
// 多数检查是一行表：「打这几行（scenario.lines），模型这样回答（scenario.model），然后看请求、磁盘、输出（expect）」；
// 几个同一剧本的检查共用一次运行。只有看时机的检查（边到边显示）才自己写 run。
import type { FakeReply } from '../fake-model/replies.ts';
import type { LearnerOptions, LearnerRun, Line, Place } from './harness.ts';

/** 一条规则：最后一条 user 消息含有这个键时怎样回答。 */
export type Rule = FakeReply | ((body: any) => FakeReply);

/**
 * 模型怎样回答：按最后一条 user 消息里的关键词（byLastUser，其余回 otherwise），
 * 或者每次运行新建一个回答函数（要记状态、要知道工作目录在哪时）。
 */
export type Model = Record<string, Rule> | ((place: Place) => (body: any) => FakeReply);

export interface Scenario {
    lines: Line[];                          // 依次打的行（确认的回答 y / n 也是一行），每行等 Agent 在等输入时才打
    model?: Model;
    otherwise?: string;                     // 按关键词回答时，别的请求回的一句话，缺省「好的」
    files?: Record<string, string>;         // 启动前写进工作目录的文件
    outside?: Record<string, string>;       // 写在工作目录旁边（它的上一级）的文件：看 Agent 出不出得了根目录
    env?: Record<string, string>;
    mcp?: string;                           // 第 15 天：工作目录的 .geekagent/mcp.json 配一台间谍服务器 spy，以这个模式启动（见 spy-mcp-server.mjs）
    timeoutMs?: number;
    refuses?: true;                         // 这次运行里本来就有工具该被拒绝（权限表、技能白名单）：工具结果说被拒绝，不当作诊断出的原因
    then?: Omit<Scenario, 'then'>;          // 跑完之后在同一个工作目录、同一个主目录里再跑一次（存盘的东西还在）
}

/** 一次剧本的结果：第一次运行，then 是第二次；有间谍服务器时带着它的日志。 */
export interface Played extends LearnerRun {
    then?: LearnerRun;
    wire: SpyEntry[];                       // 间谍服务器的日志（没配服务器时是空的）
    spyMarker?: string;                     // 间谍服务器的工具结果前面加的标记
    spyAlive?: boolean;                     // 学习者退出时（杀掉整组之前）间谍服务器还在不在
}

export interface SpyEntry { t: number; kind: string; line?: string; msg?: any; pid?: number; signal?: string }

interface About {
    day: number;
    name: string;                           // 学习者的说法，如「多轮对话：第二轮请求带着第一轮的问答」
    hint: string;                           // 不通过时给的一条提示（中文，可操作）
    section: string;                        // 要重读的章节，如 'day01/README.md#第-1-天…'（锚点按 GitHub 的标题锚点规则，要真的存在）
    optional?: true;                        // 选做 ☆：本仓库的课多做的、原教程不做的，照样显示，但不让检查失败
    pipeOnly?: true;                        // 只在管道里有意义（看的是不在终端里时的样子）：--tty 时不跑
}

export interface TableCheck extends About {
    scenario: Scenario;
    expect(run: Played): void;              // 不通过时 throw new Miss(expected, actual)
}

export interface CodeCheck extends About {
    run(ctx: CheckContext): Promise<void>;
}

export type Check = TableCheck | CodeCheck;

/** 自己写 run 的检查能用的：学习者的入口、跑一次剧本、直接跑一次。 */
export interface CheckContext {
    entry: string;
    play(scenario: Scenario): Promise<Played>;
    learner(opts: LearnerOptions): Promise<LearnerRun>;
}

/** 检查不通过：期望什么、实际看到了什么（请求或线上摘录，由报告截短）。别的异常算检查自己出错，照样记为不通过。 */
export class Miss extends Error {
    readonly expected: string;
    readonly actual: string;

    constructor(expected: string, actual: string) {
        super(`期望：${expected}\n实际：${actual}`);
        this.expected = expected;
        this.actual = actual;
        this.name = 'Miss';
    }
}
