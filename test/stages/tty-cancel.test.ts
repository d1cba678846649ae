// 行模式在真实终端里（stdin 是 TTY、stdout 接管道）：Ctrl+C 取消一轮时，正在等的 [y/N] 被答成「否」，
// 下一行输入照常作为新的一轮发出，而不是被那个确认吞掉；被拒绝的命令也没有执行。
// 需要 tmux 提供真实终端；没有 tmux 时跳过。
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertNoRejections, startFakeOpenAI, type FakeServer } from '../helpers/fake-openai.js';
import { REPO_ROOT, stagesFrom } from '../helpers/run-stage.js';

const probe = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
const skip = probe.status === 0 ? false : `tmux 不可用：${probe.error?.message ?? probe.stderr}`;
const TSX_LOADER = import.meta.resolve('tsx');
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const stage of stagesFrom('day04')) {
    describe(`${stage}: 终端里 Ctrl+C 取消正在等确认的一轮`, { skip }, () => {
        let fake: FakeServer;
        const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-ttycancel-')));
        const socket = path.join(dir, 'tmux.sock');
        const { TMUX: _t, TMUX_PANE: _p, ...env } = process.env;
        const tmux = (...args: string[]) =>
            execFileSync('tmux', ['-f', '/dev/null', '-u', '-S', socket, ...args], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
        const screen = () => tmux('capture-pane', '-p', '-t', 's');
        async function until(what: string, check: (text: string) => boolean): Promise<void> {
            const deadline = Date.now() + 20_000;
            while (!check(screen())) {
                if (Date.now() > deadline) assert.fail(`等待超时：${what}\n${screen()}`);
                await sleep(50);
            }
        }

        before(async () => {
            fake = await startFakeOpenAI();
        });
        after(async () => {
            try {
                tmux('kill-server');
            } catch { /* 已经退出 */ }
            await fake.close();
            fs.rmSync(dir, { recursive: true, force: true });
        });

        test('答「否」、回滚，下一行是新的一轮', async () => {
            const cwd = path.join(dir, 'cwd');
            fs.mkdirSync(cwd);
            fake.push(
                { kind: 'tools', calls: [{ name: 'run_shell', arguments: JSON.stringify({ command: 'touch SHOULD-NOT-EXIST' }) }] },
                { kind: 'text', text: 'reply-after-cancel' },
            );
            const vars = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, TERM: 'xterm-256color', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url, OPENAI_MODEL: 'test-model' };
            // stdout 接到 cat：不是全屏界面，而是行模式；stdin 仍是终端，Ctrl+C 由 readline 交给程序
            const script = `${quote(process.execPath)} --import ${quote(TSX_LOADER)} ${quote(path.join(REPO_ROOT, stage, 'index.ts'))} | cat; echo EXITED; exec sleep 600`;
            const command = ['env', '-i', ...Object.entries(vars).map(([k, v]) => quote(`${k}=${v}`)), 'sh', '-c', quote(script)].join(' ');
            tmux('new-session', '-d', '-x', '100', '-y', '40', '-s', 's', '-c', cwd, command);
            await until('启动横幅', (s) => s.includes('GeekAgent'));
            tmux('send-keys', '-t', 's', '-l', 'run it');
            tmux('send-keys', '-t', 's', 'Enter');
            await until('确认提示', (s) => s.includes('[y/N]'));
            tmux('send-keys', '-t', 's', 'C-c');
            await until('中断提示', (s) => s.includes('已中断'));
            tmux('send-keys', '-t', 's', '-l', 'hello again');
            tmux('send-keys', '-t', 's', 'Enter');
            await until('下一轮的回复', (s) => s.includes('reply-after-cancel'));
            tmux('send-keys', '-t', 's', 'C-d');
            await until('退出', (s) => s.includes('EXITED'));

            assert.equal(fs.existsSync(path.join(cwd, 'SHOULD-NOT-EXIST')), false, '被取消的命令不该执行');
            assert.equal(fake.requests.length, 2);
            const users = fake.requests[1].body.messages.filter((m: any) => m.role === 'user').map((m: any) => m.content);
            assert.deepEqual(users, ['hello again'], '被取消的一轮没有回滚，或者下一行被确认吞掉了');
            assertNoRejections(fake);
        });
    });
}
