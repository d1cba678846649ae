// 真实终端里（tmux）：伪造的确认提示露出真实命令，提前打的 y 不会回答之后才出现的 [y/N]。
// 行模式从 day04 起（day04 的 stdout 就是终端，所以带颜色；之后的阶段 stdout 接 cat，才是行模式），全屏界面从 day08 起。
// 管道输入的情形在 test/stages/screen.test.ts。
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

const FORGED = 'echo MALICIOUS > pwned.txt #\r\x1b[2K即将执行命令：ls';
const FORGED_SHOWN = '即将执行命令：echo MALICIOUS > pwned.txt #\\r\\x1b[2K即将执行命令：ls';
const SLOW = '这段回复还在慢慢输出，'.repeat(2);   // 一个字一块、每块 80 毫秒：约 1.6 秒，足够在提问之前先打一个 y
const userTexts = (body: any): string[] => body.messages.filter((m: any) => m.role === 'user').map((m: any) => m.content);

describe('终端里：伪造的确认提示、提前打的 y', { skip }, () => {
    let fake: FakeServer;
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-screen-tmux-')));
    const socket = path.join(dir, 'tmux.sock');
    const { TMUX: _t, TMUX_PANE: _p, ...env } = process.env;
    const tmux = (...args: string[]) =>
        execFileSync('tmux', ['-f', '/dev/null', '-u', '-S', socket, ...args], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
    let count = 0;

    /** 开一个会话跑某阶段的入口；pipeOut：stdout 接 cat（行模式）。返回会话名和工作目录。 */
    function open(stage: string, pipeOut: boolean): { name: string; cwd: string } {
        const name = `s${++count}`;
        const cwd = path.join(dir, name);
        fs.mkdirSync(cwd);
        const vars = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, TERM: 'xterm-256color', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url, OPENAI_MODEL: 'test-model' };
        const entry = `${quote(process.execPath)} --import ${quote(TSX_LOADER)} ${quote(path.join(REPO_ROOT, stage, 'index.ts'))}`;
        const script = `${entry}${pipeOut ? ' | cat' : ''}; echo EXITED; exec sleep 600`;
        const command = ['env', '-i', ...Object.entries(vars).map(([k, v]) => quote(`${k}=${v}`)), 'sh', '-c', quote(script)].join(' ');
        tmux('new-session', '-d', '-x', '140', '-y', '40', '-s', name, '-c', cwd, command);
        return { name, cwd };
    }
    const screen = (name: string) => tmux('capture-pane', '-p', '-J', '-t', name);   // -J：折行的行接回一行
    const type = (name: string, text: string) => tmux('send-keys', '-t', name, '-l', text);
    const press = (name: string, key: string) => tmux('send-keys', '-t', name, key);
    async function until(name: string, what: string, check: (text: string) => boolean): Promise<string> {
        const deadline = Date.now() + 20_000;
        for (;;) {
            const text = screen(name);
            if (check(text)) return text;
            if (Date.now() > deadline) assert.fail(`等待超时：${what}\n${text}`);
            await sleep(50);
        }
    }

    // 回复慢慢出来时用户打了 y 回车，之后模型才要求执行伪造的命令；最后是那个 y 作为新一轮得到的回复
    function pushScenario(extra = ''): void {
        fake.push(
            { kind: 'tools', text: extra + SLOW, chunkSize: 1, delayMs: 80, calls: [{ name: 'run_shell', arguments: JSON.stringify({ command: FORGED }) }] },
            { kind: 'text', text: '命令已取消' },
            { kind: 'text', text: '收到提前打的那行' },
        );
    }

    /** 提问出现之后等一会儿：命令没有执行，也没有发出下一个请求。 */
    async function assertNotApproved(cwd: string, requests: number): Promise<void> {
        await sleep(500);
        assert.ok(!fs.existsSync(path.join(cwd, 'pwned.txt')), '提前打的 y 回答了之后才出现的确认');
        assert.equal(fake.requests.length, requests);
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

    for (const stage of stagesFrom('day04')) {
        test(`${stage} 行模式：提示里看得到真实命令；提前打的 y 留给下一轮，没回车的 y 不算回答`, { timeout: 60_000 }, async () => {
            const { name, cwd } = open(stage, stage !== 'day04');
            await until(name, '启动横幅', (s) => s.includes('GeekAgent'));
            const before = fake.requests.length;
            pushScenario();
            type(name, '开始');
            press(name, 'Enter');
            await until(name, '回复开始输出', (s) => s.includes('这段回复还在'));
            type(name, 'y');
            press(name, 'Enter');
            type(name, 'y');   // 又打了一个 y，但没按回车
            const shown = await until(name, '确认提示', (s) => s.includes('[y/N]'));
            assert.ok(shown.includes(FORGED_SHOWN), shown);
            await assertNotApproved(cwd, before + 1);
            press(name, 'Enter');   // 提问之后只按了回车：提问前打的 y 不算，这是默认的「否」
            await until(name, '提前打的 y 作为新一轮', (s) => s.includes('收到提前打的那行'));
            assert.deepEqual(userTexts(fake.requests.at(-1)!.body).slice(-2), ['开始', 'y']);
            assert.ok(!fs.existsSync(path.join(cwd, 'pwned.txt')));
            press(name, 'C-d');
            await until(name, '退出', (s) => s.includes('EXITED'));
            assertNoRejections(fake);
        });
    }

    for (const stage of stagesFrom('day08')) {
        test(`${stage} 全屏界面：颜色序列和伪造的提示显示成转义；提前打的 y 和没提交的字都不算回答`, { timeout: 60_000 }, async () => {
            const { name, cwd } = open(stage, false);
            await until(name, '启动', (s) => s.includes('GeekAgent') && s.includes('You ›'));
            const before = fake.requests.length;
            pushScenario('\x1b[8m隐藏\x1b[0m');
            type(name, '开始');
            press(name, 'Enter');
            await until(name, '回复开始输出', (s) => s.includes('\\x1b[8m隐藏\\x1b[0m这段回复还在'));
            type(name, 'y');
            press(name, 'Enter');
            await until(name, '排队提示', (s) => s.includes('1 条排队'));
            type(name, 'y');   // 打了但没按回车
            const shown = await until(name, '确认提示', (s) => s.includes('[y/N]'));
            assert.ok(shown.includes(FORGED_SHOWN), shown);
            assert.match(shown, /^\[y\/N\] *$/m, '提问之前没提交的字不该留在 [y/N] 后面');
            await assertNotApproved(cwd, before + 1);
            type(name, 'n');
            press(name, 'Enter');
            const done = await until(name, '提前打的 y 作为新一轮', (s) => s.includes('收到提前打的那行'));
            assert.match(done, /^You › y *$/m, '答完之后，没提交的字回到输入行');
            assert.deepEqual(userTexts(fake.requests.at(-1)!.body).slice(-2), ['开始', 'y']);
            assert.ok(!fs.existsSync(path.join(cwd, 'pwned.txt')));
            press(name, 'C-d');
            await until(name, '退出', (s) => s.includes('EXITED'));
            assertNoRejections(fake);
        });
    }
});
