// 检查报告的样子：每项一行 ✔ / ✘（选做的前面加 ☆）；✘ 下面是期望、实际（截短）、原因或提示、该重读的那一节。
// 认出了根本原因（diagnose.ts）的 ✘：原因代替这一项的提示；同一个原因第二次出现时只说「同上」，不再重复。
import { clip } from './look.ts';
import type { CheckResult } from './report.ts';

const indent = (label: string, value: string) => {
    const [first, ...rest] = value.split('\n');
    return [`    ${label}${first}`, ...rest.map((line) => `          ${line}`)].join('\n');
};

/** 一项的报告。said：这次报告里已经完整说过的原因（同一个原因只说一次）；不给就每次都说。 */
export function formatResult(r: CheckResult, said = new Set<string>()): string {
    const head = `${r.check.optional ? '☆ ' : ''}${r.ok ? '✔' : '✘'} 第 ${r.check.day} 天 · ${r.check.name}`;
    if (r.ok || !r.miss) return head;
    const lines = [head, indent('期望：', r.miss.expected), indent('实际：', clip(r.miss.actual))];
    const d = r.diagnosis;
    const again = d !== undefined && said.has(d.kind);
    if (d) {
        lines.push(indent('原因：', again ? `同上——${d.title}` : `${d.title}\n${d.detail}`));
        said.add(d.kind);
    }
    if (!again) {
        // 原因让这一项的提示无关时（提前退出、崩溃……）只说原因，重读原因那一节
        if (!d || d.keepHint) lines.push(indent('提示：', r.check.hint));
        lines.push(indent('重读：', d && !d.keepHint ? d.section! : r.check.section));
    }
    if (r.check.optional) lines.push(indent('选做：', '原教程不做这一项（本仓库的课多做的），没通过也不影响结果'));
    return lines.join('\n');
}

export function summary(results: CheckResult[], days: number[]): string {
    const required = results.filter((r) => !r.check.optional);
    const failed = required.filter((r) => !r.ok).length;
    const optional = results.filter((r) => r.check.optional);
    const empty = days.filter((day) => !results.some((r) => r.check.day === day));
    const range = days.length === 1 ? `第 ${days[0]} 天` : `第 ${days[0]}–${days.at(-1)} 天`;
    const lines = [failed === 0
        ? `${range}：${required.length} 项全部通过。`
        : `${range}：${required.length} 项里 ${required.length - failed} 项通过，${failed} 项没通过。`];
    if (optional.length) lines.push(`选做 ☆ ${optional.length} 项里 ${optional.filter((r) => r.ok).length} 项通过（不影响结果）。`);
    if (empty.length) lines.push(`（第 ${empty.join('、')} 天还没有检查）`);
    return lines.join('\n');
}
