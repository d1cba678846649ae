// 伪终端（scripts/check/tty.ts）：只在终端里跑的 Agent 经它跑得起来、像人一样一行一行地收到输入、Ctrl+D 和 /exit 都能结束；
// 本仓库 day08 的全屏界面经它跑完一轮、干净地退出。只看请求、退出码和短标记，不看整屏文字。
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { plainText, TtyAgent, ttyUnsupported } from '../../scripts/check/tty.ts';
import { text } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI, type FakeServer } from '../../scripts/fake-model/server.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { REPO_ROOT } from '../helpers/run-stage.ts';
import { waitUntil } from '../helpers/wait.ts';
import { homeFor, workdir } from '../helpers/workdir.ts';

const TSX = import.meta.resolve('tsx');
const TTY_ONLY = path.join(REPO_ROOT, 'test/check/learners/tty-only/index.ts');
const DAY08 = path.join(REPO_ROOT, 'day08/index.ts');
const unsupported = ttyUnsupported();

function envFor(cwd: string, fake: FakeServer): Record<string, string> {
    return {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: homeFor(cwd),
        OPENAI_API_KEY: 'sk-tty-key-123456',
        OPENAI_BASE_URL: fake.url,
        OPENAI_MODEL: 'tty-model',
    };
}

const lastUser = (body: any): string => body.messages.filter((m: any) => m.role === 'user').at(-1)?.content ?? '';
// 假模型回完了最后一个请求：Agent 在等下一行（再加上 TtyAgent 自己等的「输出安静 1 秒」）
const answered = (fake: FakeServer, n: number) => () => fake.requests.length >= n;

describe('伪终端（--tty）', { skip: unsupported ?? false }, () => {
    test('只在终端里跑的 Agent：管道下立刻退出；伪终端里两轮带着历史，Ctrl+D 退出码 0', async () => {
        const fake = await startFakeOpenAI({ replies: (req) => text(lastUser(req.body) === '第一问' ? 'ANSWER-ONE' : 'ANSWER-TWO') });
        const cwd = workdir();
        try {
            const piped = spawnSync(process.execPath, ['--import', TSX, TTY_ONLY], { cwd, env: envFor(cwd, fake), input: '第一问\n', encoding: 'utf8' });
            assert.equal(piped.status, 1);
            assert.match(piped.stderr, /需要真实终端（TTY）/);
            assert.equal(fake.requests.length, 0);

            const agent = new TtyAgent({ argv: [process.execPath, '--import', TSX, TTY_ONLY], cwd, env: envFor(cwd, fake), rows: 30, cols: 100 });
            try {
                assert.ok(await agent.waitFor('You ›'), agent.output);
                assert.ok(await agent.type('第一问'));
                assert.ok(await agent.waitFor('ANSWER-ONE'), agent.output);
                assert.ok(await agent.type('第二问', answered(fake, 1)));
                assert.ok(await agent.waitFor('ANSWER-TWO'), agent.output);
                assert.ok(await agent.ctrlD(answered(fake, 2)));
                assert.deepEqual(await agent.exited, { code: 0, timedOut: false });
            } finally {
                agent.kill();
            }
            assert.equal(fake.requests.length, 2);
            const second = fake.requests[1].body.messages.map((m: any) => `${m.role}:${m.content}`);
            assert.deepEqual(second, ['user:第一问', 'assistant:ANSWER-ONE', 'user:第二问']);
            assert.match(plainText(agent.output), /bye/);
            assertNoRejections(fake);
        } finally {
            await fake.close();
        }
    });

    test('kill()：整个会话一个不留，包括 Agent 起的、自己另开进程组的进程；到了期限自己 kill，timedOut', async () => {
        const cwd = workdir();
        const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd };
        // 一个「Agent」：起一个另开进程组的 sleep，报出它的 pid，然后自己一直不退出
        const stubborn = "const c = require('node:child_process').spawn('sleep', ['600'], { detached: true, stdio: 'ignore' }); console.log('CHILD', c.pid); setInterval(() => {}, 1000);";
        const agent = new TtyAgent({ argv: [process.execPath, '-e', stubborn], cwd, env });
        assert.ok(await agent.waitFor(/CHILD \d+/), agent.output);
        const pid = Number(/CHILD (\d+)/.exec(plainText(agent.output))![1]);
        agent.kill();
        assert.deepEqual(await agent.exited, { code: null, timedOut: false });
        await waitUntil(`sleep（pid ${pid}）被杀掉`, () => !fs.existsSync(`/proc/${pid}`) || /\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')));

        const late = new TtyAgent({ argv: [process.execPath, '-e', 'setInterval(() => {}, 1000)'], cwd, env, deadlineMs: 1000 });
        assert.deepEqual(await late.exited, { code: null, timedOut: true });
    });

    test('day08 的全屏界面：一轮对话、/exit，退出码 0，离开全屏时恢复了终端', async () => {
        const fake = await startFakeOpenAI({ replies: () => text('DAY08-TTY-ANSWER') });
        const cwd = workdir();
        const agent = new TtyAgent({ argv: [process.execPath, '--import', TSX, DAY08], cwd, env: envFor(cwd, fake) });
        try {
            assert.ok(await agent.waitFor('You ›'), plainText(agent.output));
            assert.ok(agent.output.includes('\x1b[?1049h'), '没有进入全屏（备用屏幕）');
            assert.ok(await agent.type('你好'));
            assert.ok(await agent.waitFor('DAY08-TTY-ANSWER'), plainText(agent.output));
            assert.ok(await agent.type('/exit', answered(fake, 1)));
            assert.deepEqual(await agent.exited, { code: 0, timedOut: false });
            assert.ok(agent.output.includes('\x1b[?1049l'), '退出时没有离开备用屏幕');
            assert.equal(fake.requests.length, 1);
            assert.equal(lastUser(fake.requests[0].body), '你好');
            assertNoRejections(fake);
        } finally {
            agent.kill();
            await fake.close();
        }
    });
});
