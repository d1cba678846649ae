// 伪终端（npm run check 的 --tty，scripts/check/tty.ts）：只肯在终端里跑的 Agent 经它跑得起来、像人一样一行一行地收到输入、
// Ctrl+D 能结束；结束时整个会话一个不留；本仓库 day08 的全屏界面经它通过第 8 天（权限确认、/undo）。
// 在伪终端里只看请求、磁盘、退出码和短标记，不看整屏文字；不看用了多久。
// 管道里的那一半（只肯在终端里跑的 Agent 得到的诊断）不需要 script，不跳过。
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { formatResult } from '../../scripts/check/format.ts';
import { exitCode, runChecks } from '../../scripts/check/report.ts';
import { nodeCommand } from '../../scripts/check/spawn.ts';
import { TTY, ttyUnsupported } from '../../scripts/check/tty.ts';
import { compiledEntry } from '../helpers/compiled.ts';
import { REPO_ROOT } from '../helpers/run-stage.ts';
import { CHECK_QUIET_MS, waitUntil } from '../helpers/wait.ts';
import { workdir } from '../helpers/workdir.ts';

const TTY_ONLY = path.join(REPO_ROOT, 'test/check/learners/tty-only');
const unsupported = ttyUnsupported();
const skip = unsupported ? `这台机器上跑不了 --tty：${unsupported}` : false;

const gone = (pid: number) => !fs.existsSync(`/proc/${pid}`) || /\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
const cmdline = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

test('只肯在终端里跑的小 Agent 经管道检查：每项 ✘ 都归到一个原因「只肯在终端里跑」，给出 --tty 和 isTTY 开关两条路', async () => {
    const results = await runChecks({ entry: path.join(TTY_ONLY, 'index.ts'), days: [1], quietMs: CHECK_QUIET_MS });
    assert.equal(exitCode(results), 1);
    assert.ok(results.every((r) => !r.ok && r.diagnosis?.kind === 'tty'), results.map((r) => formatResult(r)).join('\n'));
    const said = new Set<string>();
    const report = results.map((r) => formatResult(r, said)).join('\n');
    assert.equal(report.match(/它只肯在终端里跑/g)?.length, results.length, report);   // 第一次完整说，之后「同上」
    assert.equal(report.match(/两个办法任选/g)?.length, 1, report);
    assert.match(report, /加 --tty 在伪终端里跑（npm run check -- N 文件夹 --tty）/);
    assert.match(report, /process\.stdin\.isTTY && process\.stdout\.isTTY \? 全屏界面 : 行模式/);
});

describe('伪终端（--tty）', { skip, concurrency: true }, () => {
    test('TTY.start：Agent 在终端里（isTTY）、是 script 下面的 node；一行一行打、Ctrl+D 结束，退出码照传；stdout 没有控制序列', async () => {
        const cwd = workdir();
        const echo = `
import readline from 'node:readline';
console.log('\\x1b[32mTTY:' + Boolean(process.stdin.isTTY && process.stdout.isTTY) + '\\x1b[0m');
const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
rl.on('line', (line) => console.log('GOT<' + line + '>'));
rl.on('close', () => { console.log('EOF'); process.exit(7); });
`;
        const file = path.join(cwd, 'echo.mjs');
        fs.writeFileSync(file, echo);
        const agent = TTY.start(nodeCommand(file), { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd } });
        try {
            await waitUntil('Agent 说出它在不在终端里', () => agent.stdout().includes('TTY:'), agent.stdout);
            assert.match(agent.stdout(), /^TTY:true$/m);
            assert.ok(!agent.stdout().includes('\x1b'), JSON.stringify(agent.stdout()));
            const pid = agent.agentPid()!;
            assert.notEqual(pid, agent.child.pid);
            assert.equal(cmdline(pid)[0], process.execPath);
            await agent.typeLine('第一行');
            await waitUntil('第一行到了', () => agent.stdout().includes('GOT<第一行>'), agent.stdout);
            await agent.typeLine('second');
            await waitUntil('第二行到了', () => agent.stdout().includes('GOT<second>'), agent.stdout);
            agent.end();
            assert.equal(await agent.exited, 7);
            assert.match(agent.stdout(), /EOF/);
        } finally {
            agent.killGroup();
        }
    });

    test('killGroup：整个会话一个不留，包括 Agent 起的、自己另开进程组的进程；到了期限自己结束，timedOut', async () => {
        const cwd = workdir();
        const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd };
        const stubborn = "const c = require('node:child_process').spawn('sleep', ['600'], { detached: true, stdio: 'ignore' }); console.log('CHILD', c.pid); setInterval(() => {}, 1000);";
        const agent = TTY.start([process.execPath, '-e', stubborn], { cwd, env });
        await waitUntil('Agent 报出子进程的 pid', () => /CHILD \d+/.test(agent.stdout()), agent.stdout);
        const pid = Number(/CHILD (\d+)/.exec(agent.stdout())![1]);
        const node = agent.agentPid()!;
        agent.killGroup();
        assert.equal(await agent.exited, null);
        assert.equal(agent.timedOut(), false);
        await waitUntil(`sleep（pid ${pid}）和 Agent（pid ${node}）被杀掉`, () => gone(pid) && gone(node));

        const late = TTY.start([process.execPath, '-e', 'setInterval(() => {}, 1000)'], { cwd, env, timeoutMs: 1000 });
        assert.equal(await late.exited, null);
        assert.equal(late.timedOut(), true);
    });

    test('npm run check -- 1 <只肯在终端里跑的小 Agent> --tty：通过第 1 天（☆ 提前打的行它丢掉，不影响结果）', async () => {
        // 复制一份再查：☆ ✘ 时运行记录写进文件夹的 .check/，不写进仓库
        const folder = workdir({ 'package.json': '{ "type": "module" }\n', 'index.ts': fs.readFileSync(path.join(TTY_ONLY, 'index.ts')) });
        // 不用 spawnSync：它会卡住这个测试进程，同时跑的别的伪终端测试就等不到输出
        const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
            const argv = ['--import', 'tsx', path.join(REPO_ROOT, 'scripts/check.ts'), '1', folder, '--tty'];
            const env = { PATH: process.env.PATH, INIT_CWD: REPO_ROOT };
            execFile(process.execPath, argv, { cwd: REPO_ROOT, env }, (error, stdout, stderr) => resolve({ status: error ? (error.code as number) : 0, stdout, stderr }));
        });
        assert.equal(r.status, 0, r.stdout + r.stderr);
        assert.match(r.stdout, /第 1 天（在伪终端里跑）/);
        assert.match(r.stdout, /第 1 天：\d+ 项全部通过。/);
        assert.ok(r.stdout.split('\n').filter((l) => /^✘/.test(l)).length === 0, r.stdout);
        assert.match(r.stdout, /^☆ ✘ 第 1 天 · 忙时提前打的行不丢/m);
    });

    test('day08 的全屏界面经 --tty 通过第 8 天的每一项（y/N 确认、/undo 都在界面里答）', async () => {
        const results = await runChecks({ entry: compiledEntry('day08'), days: [8], spawner: TTY, parallel: 2 });
        assert.ok(results.length >= 5, `第 8 天只有 ${results.length} 项`);
        assert.equal(results.filter((r) => !r.ok).map((r) => formatResult(r)).join('\n\n'), '');
        for (const run of results.flatMap((r) => r.runs)) {
            assert.ok(run.terminal);
            assert.equal(run.quietMs, 1000);
            assert.ok(run.typed.every((t) => !t.forced), JSON.stringify(run.typed));
        }
    });

    test('伪终端里崩溃：诊断读终端上的文字（stderr 也写在终端上），说成 Node 版本问题', async () => {
        const entry = path.join(workdir({ 'package.json': '{ "type": "module" }\n', 'index.ts': "import { noSuchExportInAnyNode } from 'node:fs/promises';\nconsole.log(noSuchExportInAnyNode);\n" }), 'index.ts');
        const results = await runChecks({ entry, days: [1], spawner: TTY, filter: (c) => c.name.startsWith('/exit') });
        assert.equal(results.length, 1);
        const report = formatResult(results[0]);
        assert.match(report, /原因：你的代码从 Node 内置模块 node:fs\/promises 导入 noSuchExportInAnyNode/, report);
        assert.match(report, /终端上：\n.*does not provide an export named 'noSuchExportInAnyNode'/s, report);
        assert.equal(results[0].runs[0].stderr, '');
    });
});

