// 先诊断、再评判：一项 ✘ 之前，先看它用过的运行里有没有常见的根本原因——Agent 提前退出、崩溃（Node 版本不够）、
// 只肯在终端里跑、两轮对话交叠、新工具被默认的权限规则拒绝、假模型回了 400、检查等不到 Agent 空下来。
// 认出来的原因替代这一项的提示（那些提示多半和它无关）；同一个原因解释好几项 ✘ 时只完整地说一次（format.ts）。
import type { LearnerRun } from './harness.ts';
import { clip, contentOf, errorOutput, messagesOf } from './look.ts';
import { FORCE_MS } from './typist.ts';

export interface Diagnosis {
    kind: string;           // 同一种原因只完整地说一次
    title: string;          // 一句话：是什么
    detail: string;         // 看到了什么、怎么改
    keepHint: boolean;      // 这一项自己的提示还有用（400、等不到空下来），照样显示它和它的那一节；否则只说原因
    section?: string;       // 不保留提示时，该重读的那一节
}

const CONTRACT = 'README.md#自己写';

/**
 * stderr 里最要紧的几行，前面标着「stderr：」（伪终端里是「终端上：」，见 look.ts 的 errorOutput）：
 * 有「…Error: …」那一行就取它前后几行（崩溃的原因在这里，后面的调用栈不要紧），否则取最后几行。
 */
export function stderrExcerpt(run: LearnerRun): string {
    const { label, text: all } = errorOutput(run);
    const lines = all.trimEnd().split('\n');
    const at = lines.findIndex((l) => /^\w*(Error|Exception)\b.*?:|^\w*Error \[/.test(l.trim()));
    const picked = at >= 0 ? lines.slice(Math.max(0, at - 3), at + 4) : lines.slice(-8);
    const text = picked.join('\n');
    return `${label}：\n${text.trim() ? clip(text, 800) : '（是空的）'}`;
}

const exitWords = (run: LearnerRun) => (run.code === null ? '被信号结束' : `退出码 ${run.code}`);

function terminalOnly(run: LearnerRun): Diagnosis | undefined {
    const said = `${run.stdout}\n${run.stderr}`;
    if (run.terminal || run.timedOut || run.typed.length > 1 || run.requests.length > 0 || !/TTY|终端|terminal/i.test(said)) return undefined;
    return {
        kind: 'tty',
        title: 'Agent 一启动就退出了：它只肯在终端里跑（stdin、stdout 不是 TTY 时退出），检查是经管道运行的',
        detail: `${exitWords(run)}；输出：${clip(said.trim(), 300)}\n两个办法任选：加 --tty 在伪终端里跑（npm run check -- N 文件夹 --tty）；`
            + '或者照第 7 天「自己写」加一个开关：process.stdin.isTTY && process.stdout.isTTY ? 全屏界面 : 行模式',
        section: 'day08/README.md#自己写-2',
        keepHint: false,
    };
}

function crash(run: LearnerRun): Diagnosis | undefined {
    const errors = errorOutput(run).text;
    const missing = /does not provide an export named '([^']+)'/.exec(errors);
    const from = /The requested module '(node:[^']+|[a-z_:/]+)'/.exec(errors)?.[1];
    if (missing && from?.startsWith('node:')) {
        return {
            kind: 'node-version',
            title: `你的代码从 Node 内置模块 ${from} 导入 ${missing[1]}，而这个 Node（${process.version}）没有它`,
            detail: `多半是它要更新的 Node（比如 node:fs/promises 的 glob 从 Node 22 才有）。换用更新的 Node，或者不用它（自己写一个）。\n${stderrExcerpt(run)}`,
            section: CONTRACT,
            keepHint: false,
        };
    }
    if (run.timedOut || run.code === 0 || !/Error|Exception|at .+:\d+:\d+/.test(errors)) return undefined;
    return {
        kind: 'crash',
        title: `Agent 崩溃了（${exitWords(run)}）`,
        detail: stderrExcerpt(run),
        section: CONTRACT,
        keepHint: false,
    };
}

function exitedEarly(run: LearnerRun): Diagnosis | undefined {
    if (run.timedOut || run.untyped.length === 0 || run.typed.at(-1)?.line === '/exit') return undefined;
    return {
        kind: 'exited-early',
        title: `Agent 在收下所有输入之前就退出了（${exitWords(run)}）：打了 ${run.typed.length} 行，还有「${run.untyped.join('」「')}」没打`,
        detail: '只在读到 /exit 或输入结束（EOF）时退出；用 rl.on(\'close\', () => process.exit(0)) 的话，看看是不是别处提前关掉了 rl，'
            + `或者确认的回答读完就关了输入。\n${stderrExcerpt(run)}`,
        section: CONTRACT,
        keepHint: false,
    };
}

function overlapping(run: LearnerRun): Diagnosis | undefined {
    if (run.maxOpen < 2) return undefined;
    return {
        kind: 'overlap',
        title: '两轮对话交叠了：同时有两个请求在等模型回答',
        detail: '上一轮还没结束，下一行（比如确认的回答 y）又开了一轮：rl.on(\'line\', async …) 每来一行就开一轮，不等上一轮。'
            + '一次只处理一行：用 for await (const line of rl) 逐行处理，或者忙的时候把新来的行排队（确认问题从同一个队列取回答）',
        section: 'day01/README.md#自己写',
        keepHint: false,
    };
}

/** 检查没让任何工具被拒绝，工具结果却说被权限规则拒绝了：学习者默认的规则拒绝了新工具（第 8 天的权限层对没有策略的工具说 deny）。 */
function denied(run: LearnerRun, refuses: boolean): Diagnosis | undefined {
    if (refuses) return undefined;
    const refusal = run.requests.flatMap((body) => messagesOf(body).filter((m) => m.role === 'tool').map(contentOf))
        .find((said) => /权限拒绝|不允许执行|permission denied|not allowed/i.test(said));
    if (!refusal) return undefined;
    return {
        kind: 'denied',
        title: `工具被你的权限规则拒绝了：「${clip(refusal, 120)}」`,
        detail: '检查没有配权限表、也没让它被拒绝，是你的默认规则拒绝了它：第 8 天的权限层对没有策略的工具一律 deny。'
            + '新加的工具（比如 MCP 服务器的工具）注册时给它一个策略，例如 ensureToolPolicy(名字, \'ask\')，或者在默认策略表里加一条',
        section: 'day15/README.md#自己写-3',
        keepHint: false,
    };
}

function rejected(run: LearnerRun): Diagnosis | undefined {
    if (run.rejected.length === 0) return undefined;
    return {
        kind: 'rejected',
        title: `假模型回了 400（像真实 API 一样拒绝不合格的请求）：${clip(run.rejected[0], 300)}`,
        detail: '报错原文说了请求里哪一条消息不对；之后带着同一段历史的请求都会被拒绝',
        keepHint: true,
    };
}

function forced(run: LearnerRun): Diagnosis | undefined {
    const late = [...run.typed, ...(run.closed ? [{ ...run.closed, line: '（关掉 stdin）' }] : [])].find((t) => t.forced);
    if (!late) return undefined;
    return {
        kind: 'forced',
        title: `检查等了 ${FORCE_MS / 1000} 秒，Agent 还不像在等输入（${late.forced}），照样打了「${late.line}」`,
        detail: 'Agent 在忙的时候打进去的行，它可能丢掉了；看看是哪里一直没结束（一直没回答的请求、没退出的子进程）',
        keepHint: true,
    };
}

/** 按这个先后找：越靠前的越根本（只肯在终端里跑、崩溃、提前退出、交叠，都让后面的一切对不上）。 */
const RULES: Array<(run: LearnerRun, refuses: boolean) => Diagnosis | undefined> = [terminalOnly, crash, exitedEarly, overlapping, denied, rejected, forced];

/** 一项检查用过的这些运行里最根本的一个原因；没有就是 undefined。refuses：这次运行里本来就有工具该被拒绝（Scenario.refuses）。 */
export function diagnose(runs: Array<{ run: LearnerRun; refuses: boolean }>): Diagnosis | undefined {
    for (const rule of RULES) {
        for (const { run, refuses } of runs) {
            const found = rule(run, refuses);
            if (found) return found;
        }
    }
    return undefined;
}
