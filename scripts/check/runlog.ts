// 没通过时的完整运行记录（<文件夹>/.check/last-run.log）：没通过的每一项用过的每次运行，
// 打了哪几行、什么时候打的，stdout、stderr 原样，模型收到的每个请求和它回了什么，MCP 服务器线上的每一行。
// 报告里的「实际」只是摘录；想看 Agent 到底做了什么，看这里。
import type { LearnerRun } from './harness.ts';
import type { CheckResult } from './report.ts';
import type { Played } from './types.ts';

const since = (run: LearnerRun, at: number) => `+${at - run.startedAt} ms`;

/** 回复的样子：不带 hold（它是个 Promise），太长的原始 SSE 只留开头。 */
function replyText(reply: unknown): string {
    return JSON.stringify(reply, (key, value) => {
        if (key === 'hold') return undefined;
        if (typeof value === 'string' && value.length > 2000) return `${value.slice(0, 2000)}…（共 ${value.length} 个字符）`;
        if (value?.type === 'Buffer') return `（${value.data.length} 字节）`;
        return value;
    });
}

function runText(run: LearnerRun, n: number): string {
    const out: string[] = [];
    const ended = run.timedOut ? '到时被检查结束' : `退出码 ${run.code}`;
    out.push(`== 运行 #${n}：${run.entry}`, `工作目录 ${run.dir}；主目录 ${run.home}；${ended}；输出静了 ${run.quietMs} ms 才算在等输入`);
    out.push('-- 打的行（相对启动）');
    for (const t of run.typed) out.push(`  +${t.at} ms  ${t.line}${t.forced ? `    （等了很久还不像在等：${t.forced}）` : ''}`);
    if (run.closed) out.push(`  +${run.closed.at} ms  （关掉 stdin）${run.closed.forced ? `    （${run.closed.forced}）` : ''}`);
    if (run.exitedAt !== undefined) out.push(`  +${run.exitedAt} ms  （Agent 退出）`);
    if (run.untyped.length) out.push(`  没来得及打：${run.untyped.join(' | ')}`);
    if (run.terminal) out.push('-- 伪终端（界面和 Agent 的 stderr 都写在这里；去掉了控制序列）', run.stdout, '-- script 自己的 stderr', run.stderr);
    else out.push('-- stdout', run.stdout, '-- stderr', run.stderr);
    out.push('-- 模型收到的请求和它的回复');
    for (const [i, r] of run.exchanges.entries()) {
        out.push(`#${i + 1} ${since(run, r.at)} ${r.method} ${r.path}`, `  → ${typeof r.body === 'string' ? r.body : JSON.stringify(r.body)}`);
        out.push(r.rejected !== undefined ? `  ← 400 ${r.rejected}` : `  ← ${replyText(r.reply)}${r.done ? `（${since(run, r.done)} 发完）` : '（没发完）'}`);
    }
    const wire = (run as Played).wire ?? [];
    if (wire.length) {
        out.push('-- MCP 服务器线上（→ 客户端发给服务器，← 服务器发出）');
        for (const e of wire) {
            const what = e.kind === 'in' ? `→ ${e.line}` : e.kind === 'out' ? `← ${e.line}` : `（${e.kind}${e.pid ? ` pid ${e.pid}` : ''}${e.signal ? ` ${e.signal}` : ''}）`;
            out.push(`  ${since(run, e.t)}  ${what}`);
        }
    }
    return out.join('\n');
}

/** 没通过的项和它们用过的运行（几项共用的运行只写一次）。 */
export function runLog(results: CheckResult[]): string {
    const failed = results.filter((r) => !r.ok);
    const ids = new Map<LearnerRun, number>();
    for (const r of failed) for (const run of r.runs) if (!ids.has(run)) ids.set(run, ids.size + 1);
    const head = [`npm run check 的运行记录（${new Date().toISOString()}）：没通过的项用过的每次运行`, ''];
    for (const r of failed) {
        const used = r.runs.map((run) => `#${ids.get(run)}`).join('、') || '（没有运行）';
        head.push(`${r.check.optional ? '☆ ' : ''}✘ 第 ${r.check.day} 天 · ${r.check.name} → 运行 ${used}`);
    }
    return [...head, '', ...[...ids].map(([run, n]) => runText(run, n))].join('\n');
}
