// 先诊断、再评判（scripts/check/diagnose.ts）：每一种常见的根本原因都被认出来，报告里说出它、给出怎么改、该重读哪一节，
// 同一个原因解释好几项 ✘ 时只完整地说一次。用的是写在临时目录里的小 Agent（几行 Node 代码，各犯一种错）。
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, tools, type FakeReply } from '../../scripts/fake-model/replies.ts';
import { diagnose } from '../../scripts/check/diagnose.ts';
import { formatResult } from '../../scripts/check/format.ts';
import { runLearner } from '../../scripts/check/harness.ts';
import { exitCode, runChecks, type CheckResult } from '../../scripts/check/report.ts';
import { Miss } from '../../scripts/check/types.ts';
import { compiledCopy } from '../helpers/compiled.ts';
import { CHECK_QUIET_MS } from '../helpers/wait.ts';
import { workdir } from '../helpers/workdir.ts';

/** 一个小 Agent：index.ts 就是 source（放在 type: module 的文件夹里，可以用顶层 await）。 */
const agent = (source: string): string => compiledCopy(path.join(workdir({ 'package.json': '{ "type": "module" }\n', 'index.ts': source }), 'index.ts'));

/** 发一个流式请求、把回答原样打出来的几行代码：小 Agent 们共用。 */
const ASK = `
const ask = async (messages: unknown[]) => {
    const res = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.OPENAI_API_KEY },
        body: JSON.stringify({ model: process.env.OPENAI_MODEL, messages, stream: true }),
    });
    const text = await res.text();
    process.stdout.write(text.length + ' bytes\\n');
    return text;
};
`;

/** 第 1 天的全部检查跑一遍，按命令行的样子（同一个原因只说一次）排成报告。 */
async function dayOne(entry: string): Promise<{ results: CheckResult[]; report: string }> {
    const results = await runChecks({ entry, days: [1], quietMs: CHECK_QUIET_MS });
    const said = new Set<string>();
    return { results, report: results.map((r) => formatResult(r, said)).join('\n') };
}

/** 报告里的「原因：」段落：完整说的一次，和「同上」的几次。 */
function reasons(report: string): { full: string[]; again: number } {
    const lines = report.split('\n').filter((l) => l.startsWith('    原因：'));
    return { full: lines.filter((l) => !l.includes('同上——')), again: lines.filter((l) => l.includes('同上——')).length };
}

/** 只看一次运行：把它当作一项没通过的检查，排成报告。 */
function oneResult(run: Awaited<ReturnType<typeof runLearner>>, refuses = false): string {
    const check = { day: 2, name: '某一项', hint: '这一项自己的提示', section: 'day04/README.md#第-2-天工具循环从流里拼出工具调用', scenario: { lines: [] }, expect() {} };
    return formatResult({ check, ok: false, miss: new Miss('期望', '实际'), diagnosis: diagnose([{ run, refuses }]), runs: [run], ms: 0 });
}

describe('诊断：认出根本原因，只说一次', { concurrency: true }, () => {
    test('收下所有输入之前就退出：说出退出码和 stderr 的最后几行，不再给每项的提示', async () => {
        const entry = agent(`${ASK}
import readline from 'node:readline';
const rl = readline.createInterface({ input: process.stdin });
rl.once('line', async (line) => {
    await ask([{ role: 'user', content: line }]);
    console.error('读完一行就走：stderr 的最后一行');
    process.exit(3);
});
`);
        const { results, report } = await dayOne(entry);
        assert.equal(exitCode(results), 1);
        const { full, again } = reasons(report);
        assert.equal(full.length, 1, report);
        assert.match(full[0], /收下所有输入之前就退出了（退出码 3）：打了 1 行/);
        assert.match(report, /读完一行就走：stderr 的最后一行/);
        assert.ok(again >= 2, report);
        assert.ok(!report.includes('提示：用户的话和模型的完整回答都要 push 进 history'), report);
        assert.match(report, /重读：README\.md#自己写/);
    });

    test('崩溃：stderr 原样给出；从 Node 内置模块导入这个 Node 没有的东西，说成 Node 版本问题', async () => {
        const entry = agent(`import { noSuchExportInAnyNode } from 'node:fs/promises';\nconsole.log(noSuchExportInAnyNode);\n`);
        const { report } = await dayOne(entry);
        const { full, again } = reasons(report);
        assert.equal(full.length, 1, report);
        assert.match(full[0], new RegExp(`从 Node 内置模块 node:fs/promises 导入 noSuchExportInAnyNode，而这个 Node（${process.version.replace(/\./g, '\\.')}）没有它`));
        assert.match(report, /does not provide an export named 'noSuchExportInAnyNode'/);
        assert.ok(again >= 4, report);

        const thrown = agent(`import readline from 'node:readline';\nreadline.createInterface({ input: process.stdin }).on('line', () => { throw new Error('处理这一行时炸了'); });\n`);
        const crashed = (await dayOne(thrown)).report;
        assert.match(reasons(crashed).full[0], /Agent 崩溃了（退出码 1）/);
        assert.match(crashed, /Error: 处理这一行时炸了/);
    });

    test('一启动就崩溃的 Agent：第 1–15 天没有一项通过（什么都没发生，不算做到了「不执行」「不写」「没发 y」）', async () => {
        const entry = agent(`import { noSuchExportInAnyNode } from 'node:fs/promises';\nconsole.log(noSuchExportInAnyNode);\n`);
        const results = await runChecks({ entry, days: Array.from({ length: 15 }, (_, i) => i + 1), quietMs: CHECK_QUIET_MS });
        assert.ok(results.length > 50, `只有 ${results.length} 项`);
        assert.deepEqual(results.filter((r) => r.ok).map((r) => `第 ${r.check.day} 天 · ${r.check.name}`), []);
        assert.ok(results.every((r) => r.diagnosis?.kind === 'node-version'), results.map((r) => formatResult(r)).join('\n'));
    });

    test('只肯在终端里跑：说出原因，给出 --tty 和「isTTY ? 全屏界面 : 行模式」两条路', async () => {
        const entry = agent(`if (!process.stdin.isTTY || !process.stdout.isTTY) {\n    console.error('需要真实终端（TTY）');\n    process.exit(1);\n}\n`);
        const { report } = await dayOne(entry);
        const { full } = reasons(report);
        assert.equal(full.length, 1, report);
        assert.match(full[0], /它只肯在终端里跑/);
        assert.match(report, /--tty/);
        assert.match(report, /isTTY \? 全屏界面 : 行模式/);
        assert.match(report, /重读：day08\/README\.md#自己写-2/);
    });

    test('两轮对话交叠：同时有两个请求在等模型', async () => {
        // rl.on('line', async …) 每来一行就开一轮：回答还在流时又来一行，就同时有两个请求
        const entry = agent(`${ASK}
import readline from 'node:readline';
readline.createInterface({ input: process.stdin }).on('line', async (line) => { await ask([{ role: 'user', content: line }]); });
`);
        let release!: () => void;
        const second = new Promise<void>((resolve) => { release = resolve; });
        let n = 0;
        const run = await runLearner(entry, {
            lines: ['第一问', { ahead: '第二问' }],
            quietMs: CHECK_QUIET_MS,
            model: (): FakeReply => (++n === 2 ? (release(), { kind: 'text', text: '二' }) : { kind: 'text', text: '一', hold: second }),
        });
        assert.equal(run.maxOpen, 2);
        const report = oneResult(run);
        assert.match(report, /原因：两轮对话交叠了：同时有两个请求在等模型回答/);
        assert.match(report, /一次只处理一行/);
        assert.ok(!report.includes('这一项自己的提示'), report);
    });

    test('新工具被默认的权限规则拒绝：说出怎样给新工具一个策略', async () => {
        const entry = agent(`${ASK}
import readline from 'node:readline';
readline.createInterface({ input: process.stdin }).on('line', async (line) => {
    const history: any[] = [{ role: 'user', content: line }];
    const said = await ask(history);
    const id = said.includes('"id":"call_1"') ? 'call_1' : undefined;   // 模型要调用的工具（这个测试里就是 call_1）
    if (!id) return;
    history.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'mcp_spy_echo', arguments: '{}' } }] });
    history.push({ role: 'tool', tool_call_id: id, content: '权限拒绝：工具 mcp_spy_echo 不允许执行' });
    await ask(history);
});
`);
        const run = await runLearner(entry, { lines: ['调用 echo'], quietMs: CHECK_QUIET_MS, model: (body) => (body.messages.length === 1 ? tools(call('call_1', 'mcp_spy_echo', {})) : { kind: 'text', text: '好' }) });
        const report = oneResult(run);
        assert.match(report, /原因：工具被你的权限规则拒绝了：「权限拒绝：工具 mcp_spy_echo 不允许执行」/);
        assert.match(report, /ensureToolPolicy/);
        assert.match(report, /重读：day15\/README\.md#自己写-3/);
        // 检查本来就让工具被拒绝（第 8 天的 deny、第 11 天的技能白名单）时，被拒绝不算原因
        assert.ok(!oneResult(run, true).includes('原因：'));
    });

    test('假模型回了 400：给出报错原文，也留着这一项自己的提示', async () => {
        const entry = agent(`${ASK}
import readline from 'node:readline';
readline.createInterface({ input: process.stdin }).on('line', async (line) => {
    await ask([{ role: 'user', content: line }, { role: 'tool', content: '没有 tool_call_id 的结果' }]);
});
`);
        const run = await runLearner(entry, { lines: ['你好'], quietMs: CHECK_QUIET_MS });
        const report = oneResult(run);
        assert.match(report, /原因：假模型回了 400（像真实 API 一样拒绝不合格的请求）：Invalid type for 'messages\[1\]\.tool_call_id'/);
        assert.match(report, /提示：这一项自己的提示/);
        assert.match(report, /重读：day04\/README\.md#第-2-天/);
    });

    test('等了很久 Agent 还不像在等输入（留着一个不退出的子进程）：照样打下去，说出是在等什么', async () => {
        const entry = agent(`
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
let child: ChildProcess | undefined;
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
    if (line === '起一个后台进程') child = spawn('sleep', ['1000'], { stdio: 'ignore' });
    else child?.kill();
    console.log('收到：' + line);
});
rl.on('close', () => process.exit(0));
`);
        const run = await runLearner(entry, { lines: ['起一个后台进程', '下一行'], quietMs: CHECK_QUIET_MS, timeoutMs: 40_000 });
        assert.match(run.typed[1]?.forced ?? '', /还有子进程在跑：sleep/, JSON.stringify({ typed: run.typed, code: run.code, err: run.stderr.slice(0, 800), out: run.stdout }));
        const report = oneResult(run);
        assert.match(report, /原因：检查等了 15 秒，Agent 还不像在等输入（还有子进程在跑：sleep（pid \d+）），照样打了「下一行」/);
        assert.match(report, /提示：这一项自己的提示/);
    });
});
