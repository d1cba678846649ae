// 检查要真的查得出错：第 1–8 天每天至少两个学习者常犯的错，各自在本仓库阶段的一份副本里做一处小改动，
// 断言对应的那一项 ✘、给出它的提示和要重读的章节，「实际」里看得到是哪里错了。
// 改动的原文找不到（或不止一处）时立刻失败：阶段的代码改了，这里要跟着改，而不是悄悄变成「没改也通过」。
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { limiter } from '../../scripts/check/limit.ts';
import { formatResult } from '../../scripts/check/format.ts';
import { checksOf, exitCode, runChecks } from '../../scripts/check/report.ts';
import { compiledCopy } from '../helpers/compiled.ts';
import { REPO_ROOT } from '../helpers/run-stage.ts';
import { CHECK_QUIET_MS } from '../helpers/wait.ts';
import { workdir } from '../helpers/workdir.ts';

interface Mistake {
    what: string;                   // 学习者做错了什么
    day: number;
    from: string;                   // 复制哪个阶段
    file: string;
    edits: [string, string][];      // [原文（必须恰好出现一处）, 改成]
    more?: [string, [string, string][]];   // 同一个错要连带改的另一个文件和它的改动（很少用到）
    check: string;                  // 应当 ✘ 的那一项（名字里的一段）
    because: RegExp;                // 「实际」里应当看到的
}

const MISTAKES: Mistake[] = [
    { what: '模型的回答没放进历史', day: 1, from: 'day01', file: 'chat.ts',
        edits: [["            this.history.push({ role: 'assistant', content: reply.text });\n", '']],
        check: '多轮对话', because: /user：第一问\nuser：第二问/ },
    { what: '整段回复攒到流结束才显示', day: 1, from: 'day01', file: 'sse.ts',
        // 每块只累加不 yield，流读完才把整段交给前端
        edits: [["            yield { type: 'text', text: delta.content };\n", ''], ['    return reply;\n', "    yield { type: 'text', text: reply.text };\n    return reply;\n"]],
        check: '边到边显示', because: /等了 8 秒还没显示，流结束之后才出现/ },
    { what: '请求失败时没把这一轮撤掉', day: 1, from: 'day01', file: 'chat.ts',
        edits: [['            this.history.length = start;\n', '']],
        check: '整轮撤掉', because: /user：这一问会失败/ },
    { what: '工具调用的参数片段没有拼接，后来的覆盖了前面的', day: 2, from: 'day04', file: 'sse.ts',
        edits: [['call.arguments += ', 'call.arguments = ']],
        check: '拼回完整的 JSON', because: /arguments："/ },
    { what: '工具结果没带 tool_call_id', day: 2, from: 'day04', file: 'chat.ts',
        edits: [["this.history.push({ role: 'tool', tool_call_id: call.id, content: output });", "this.history.push({ role: 'tool', content: output } as never);"]],
        check: 'tool_call_id 回给模型', because: /假模型拒绝了请求.*tool_call_id/ },
    { what: '一次回复里的几个调用只执行了第一个', day: 2, from: 'day04', file: 'chat.ts',
        edits: [['for (const call of reply.toolCalls) {', 'for (const call of reply.toolCalls.slice(0, 1)) {']],
        check: '多个工具调用都有结果', because: /did not have response messages: call_two_b/ },
    { what: '不问就执行命令', day: 3, from: 'day04', file: 'shell.ts',
        edits: [['if (!(await confirm(', 'if (false && !(await confirm(']],
        check: '没答 y 的命令不执行', because: /ran\.txt 有——命令执行了/ },
    { what: '只把 stdout 交回，stderr 丢了', day: 3, from: 'day04', file: 'shell.ts',
        edits: [["        child.stderr.setEncoding('utf8').on('data', collect);\n", '']],
        check: 'stdout 和 stderr', because: /tool 消息：[^]*STDOUT\w+$/ },
    { what: 'write 没有先建父目录', day: 4, from: 'day04', file: 'files.ts',
        edits: [['    fs.mkdirSync(path.dirname(abs), { recursive: true });\n', '']],
        check: 'write 答 y 后写入文件', because: /文件不存在；tool 消息：.*ENOENT/ },
    { what: 'glob 走进了 node_modules', day: 4, from: 'day04', file: 'glob.ts',
        edits: [[" && e.name !== 'node_modules'", '']],
        check: 'glob 按通配符', because: /node_modules\/pkg\/gamma\.ts/ },
    { what: 'patch 不管 old 出现几次，替换第一处', day: 4, from: 'day04', file: 'files.ts',
        edits: [['        if (work.indexOf(h.old, at + 1) !== -1) throw', '        if (false) throw']],
        check: 'patch 的 old 找不到或出现不止一次', because: /list\.md："- 买面包\\n- 买牛奶\\n"/ },
    { what: '从不检查历史有多长，永远不压缩', day: 5, from: 'day08', file: 'chat.ts',
        edits: [['if (!tooLong(this.history, input) || splitPoint(this.history) === 0) return;', 'return;']],
        check: '先请模型把旧消息写成摘要', because: /请求 \d+ 个/ },
    { what: '压缩时固定留最后 6 条，不管切在哪', day: 5, from: 'day08', file: 'compact.ts',
        edits: [["if (history[s].role === 'user') return s;", 'return s;']],
        check: '不拆开工具调用', because: /假模型拒绝了请求/ },
    { what: '/new 把当前的历史带进了新对话', day: 6, from: 'day08', file: 'sessions.ts',
        edits: [['return this.switchTo(id, current, []);', 'return this.switchTo(id, current, [...current]);']],
        check: '/new 开一个空对话', because: /user：ONE\w+/ },
    { what: '退出时没保存', day: 6, from: 'day08', file: 'index.ts',
        edits: [['saveOnExit(context);\n', '']],
        check: '退出时自动保存', because: /user：接着聊/ },
    { what: '管道里也进全屏界面', day: 7, from: 'day08', file: 'index.ts',
        // 课里的 screen.ts 直接 setRawMode：管道里的 stdin 没有它，一启动就崩，检查只会诊断成「只肯在终端里跑」。
        // 这里的学习者把原始模式写成了「有才开」，全屏界面照样在管道里画出来——要查出的正是这个开关
        edits: [['const fullScreen = Boolean(process.stdin.isTTY && process.stdout.isTTY);', 'const fullScreen = true;']],
        more: ['screen.ts', [['process.stdin.setRawMode(true);', 'process.stdin.setRawMode?.(true);']]],
        check: '行模式', because: /\\u001b|PLAIN/ },
    { what: '流式请求没要用量', day: 7, from: 'day08', file: 'llm.ts',
        edits: [[', stream_options: { include_usage: true } };', ' };']],
        check: 'include_usage', because: /stream_options：null/ },
    { what: '按最具体的规则决定，deny 被更具体的 allow 推翻', day: 8, from: 'day08', file: 'permissions.ts',
        edits: [["    if (matching.some((k) => rules.tools[k] === 'deny')) return 'deny';\n", '']],
        check: 'deny 胜过', because: /命令执行了/ },
    { what: '路径不检查是否在根目录内', day: 8, from: 'day08', file: 'permissions.ts',
        edits: [['if (!inside(rules.root, target) || !inside(rules.root, realOf(target))) throw', 'if (false) throw']],
        check: 'read 读不到根目录之外', because: /→ [^]*OUTSIDE\w+/ },
    { what: '没有脱敏（redact 原样返回）', day: 8, from: 'day08', file: 'redact.ts',
        edits: [['export function redact(text: string): string {\n', 'export function redact(text: string): string {\n    return text;\n']],
        check: '密钥不会发给模型', because: /密钥原样发给了模型/ },
    { what: '写入前没存旧内容，/undo 无从恢复', day: 8, from: 'day08', file: 'files.ts',
        edits: [['    backup(abs, exists ? old : null);', '']],
        check: '/undo', because: /notes\.txt："改过了\\n"/ },
];

// 复制一份再改：副本放在一个 type: module 的 package.json 下面（和仓库根目录一样），index.ts 的顶层 await 才能用
function brokenCopy(m: Pick<Mistake, 'from' | 'file' | 'edits' | 'more'>): string {
    const dir = path.join(workdir({ 'package.json': '{ "type": "module" }\n' }), 'learner');
    fs.cpSync(path.join(REPO_ROOT, m.from), dir, { recursive: true });
    for (const [name, edits] of [[m.file, m.edits], ...(m.more ? [m.more] : [])] as const) {
        const file = path.join(dir, name);
        let source = fs.readFileSync(file, 'utf8');
        for (const [find, replace] of edits) {
            assert.equal(source.split(find).length, 2, `${m.from}/${name} 里要恰好有一处「${find}」`);
            source = source.replace(find, () => replace);
        }
        fs.writeFileSync(file, source);
    }
    return path.join(dir, 'index.ts');
}

const limited = limiter(4);

describe('第 1–8 天的检查查得出常犯的错', { concurrency: true }, () => {
    // 副本先全部做好、转成 JS，再开始跑检查：转换是同步的，要是在别的检查跑着时做，这个进程里的假模型和打字的节拍
    // 就被卡住，忙的机器上一卡十几秒，正在跑的检查会误判
    const entries = new Map<Mistake, string>();
    before(() => {
        for (const m of MISTAKES) entries.set(m, compiledCopy(brokenCopy(m)));
    });
    for (const m of MISTAKES) {
        test(`第 ${m.day} 天：${m.what}`, async () => {
            const checks = (await checksOf(m.day)).filter((c) => c.name.includes(m.check));
            assert.equal(checks.length, 1, `第 ${m.day} 天名字含「${m.check}」的检查应当恰好一项`);
            const [check] = checks;
            const entry = entries.get(m)!;
            const [result] = await limited(() => runChecks({ entry, days: [m.day], filter: (c) => c === check, quietMs: CHECK_QUIET_MS }));
            const report = formatResult(result);
            assert.equal(result.ok, false, report);
            // 选做 ☆ 的项没通过照样显示，但检查的退出码仍是 0
            assert.ok(report.startsWith(`${check.optional ? '☆ ' : ''}✘ 第 ${m.day} 天 · ${check.name}\n`), report);
            assert.equal(exitCode([result]), check.optional ? 0 : 1);
            assert.ok(report.includes(`    提示：${check.hint}\n`), report);
            assert.ok(report.includes(`\n    重读：${check.section}\n`) || report.endsWith(`\n    重读：${check.section}`), report);
            assert.match(result.miss!.actual, m.because, report);
        });
    }
});

test('命令行：有一项没通过时退出码 1，报告里是 ✘ 和它的期望、实际、提示、重读；完整的运行记录写进 .check/last-run.log，--verbose 也打印出来', () => {
    const entry = brokenCopy(MISTAKES[0]);
    const folder = path.dirname(entry);
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'scripts/check.ts'), '1', folder, '--verbose', '--quiet', String(CHECK_QUIET_MS)], {
        cwd: REPO_ROOT, encoding: 'utf8', env: { PATH: process.env.PATH },
    });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^✘ 第 1 天 · 多轮对话：第二轮请求带着第一轮的问答\n {4}期望：.+\n {4}实际：[^]+\n {4}提示：.+\n {4}重读：day01\/README\.md#/m);
    assert.match(r.stdout, /^✔ 第 1 天 · \/exit 退出/m);
    assert.match(r.stdout, /第 1 天：\d+ 项里 \d+ 项通过，1 项没通过。/);

    const log = fs.readFileSync(path.join(folder, '.check', 'last-run.log'), 'utf8');
    const shown = /^完整的运行记录（打的每一行、输出、模型收到的每个请求和回复、MCP 线上）：(.+)$/m.exec(r.stdout)?.[1];
    assert.equal(shown && path.resolve(REPO_ROOT, shown), path.join(folder, '.check', 'last-run.log'), r.stdout);
    assert.match(log, /^✘ 第 1 天 · 多轮对话：第二轮请求带着第一轮的问答 → 运行 #1$/m);
    // 打的每一行和时刻、stdout、每个请求的原文和回复
    assert.match(log, /^ {2}\+\d+ ms {2}第一问\n {2}\+\d+ ms {2}第二问\n {2}\+\d+ ms {2}\/exit$/m);
    assert.match(log, /^-- stdout\n[^]*ANSWER\w+/m);
    assert.match(log, /→ \{"model":"check-model","messages":\[.*\{"role":"user","content":"第一问"\},\{"role":"user","content":"第二问"\}\]/);
    assert.match(log, /← \{"kind":"text","text":"ANSWER\w+"\}/);
    assert.ok(r.stdout.includes(log), '--verbose 把记录原样打印出来');
});
