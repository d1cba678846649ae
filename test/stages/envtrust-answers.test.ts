// 信任问题不会被意外答错：只有 y / yes 算信任；不信任只在终端里明确答了 n / no 时才记下。
// 管道里的 n、输入结束、Ctrl+C、空回车、别的字都只管这一次，并说明下次怎么回答；管道里不是回答的一行不被吞掉。
// 信任过的设置改回来不再问（每个文件夹记着信任过的指纹，不只最后一个）。经真实入口、管道输入或 tmux 里的真实终端。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { runAgent, userTexts } from '../helpers/agent.ts';
import { HARDENED_ONLY, REPO_ROOT } from '../helpers/run-stage.ts';
import { noTmux, Terminal } from '../helpers/terminal.ts';
import { workdir } from '../helpers/workdir.ts';

const TRUST_FILE = path.join('.geekagent', 'trusted-folders.json');

function writePolicies(cwd: string, tools: Record<string, string>): void {
    fs.mkdirSync(path.join(cwd, '.geekagent'), { recursive: true });
    fs.writeFileSync(path.join(cwd, '.geekagent', 'GeekAgent.json'), JSON.stringify({ root: '.', tools }));
}

const saved = (home: string) => JSON.parse(fs.readFileSync(path.join(home, TRUST_FILE), 'utf8'));

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 管道里的信任回答`, () => {
        test('第一行不是回答：不被吞掉（照常发给模型），这次按不信任；管道里的 n、输入结束也只管这一次，什么都不记', async () => {
            const cwd = workdir();
            const home = workdir();
            writePolicies(cwd, { run_shell: 'allow' });

            const first = await runAgent(stage, { cwd, input: ['掷个骰子'], replies: [text('好的')], env: { HOME: home } });
            assert.equal(first.code, 0, first.stderr);
            assert.match(first.stdout, /信任文件夹 .* 吗？\n\[y\/N\]\n（没有回答：下一行 掷个骰子 不是 y 或 n，留作普通输入。这次按不信任运行，不记下；下次启动还会再问；管道输入时把 y 或 n 放在第一行）\n/);
            assert.match(first.stdout, /^未信任此文件夹：/m);
            assert.deepEqual(userTexts(first.requests[0].body), ['掷个骰子'], '那一行照常发给了模型');
            assert.ok(!fs.existsSync(path.join(home, TRUST_FILE)), '没有回答，不该记下');

            const piped = await runAgent(stage, { cwd, input: ['n'], env: { HOME: home } });
            assert.match(piped.stdout, /\[y\/N\]\nn\n（管道里的 n 只管这一次：这次按不信任运行，不记下；下次启动还会再问。只有在终端里答的 n 才记下）\n/);
            assert.ok(!fs.existsSync(path.join(home, TRUST_FILE)), '管道里的 n 不该记下');

            const ended = await runAgent(stage, { cwd, input: [], env: { HOME: home } });
            assert.match(ended.stdout, /\[y\/N\]\n（没有回答：输入已经结束。这次按不信任运行，不记下；/, '上次没记，这次还问');
            assert.ok(!fs.existsSync(path.join(home, TRUST_FILE)));
        });

        test('信任过的设置改回来不再问：每个文件夹记着答过 y 的每一套设置', async () => {
            const cwd = workdir();
            const home = workdir();
            const ran = (r: { results: Record<string, string> }) => r.results.s === 'RAN';
            const shell = () => [tools(call('s', 'run_shell', { command: 'echo RAN' })), text('好')];

            writePolicies(cwd, { run_shell: 'allow' });
            const a = await runAgent(stage, { cwd, input: ['y', '跑'], replies: shell(), env: { HOME: home } });
            assert.ok(ran(a), a.stdout);
            writePolicies(cwd, { run_shell: 'allow', write: 'allow' });
            const b = await runAgent(stage, { cwd, input: ['y', '跑'], replies: shell(), env: { HOME: home } });
            assert.match(b.stdout, /\[y\/N\]\ny\n/, '设置变了，再问');
            assert.ok(ran(b), b.stdout);

            // 改回第一套：以前答过 y，不再问，直接信任（run_shell 不经询问就执行）
            writePolicies(cwd, { run_shell: 'allow' });
            const back = await runAgent(stage, { cwd, input: ['跑'], replies: shell(), env: { HOME: home } });
            assert.equal(back.code, 0, back.stderr);
            assert.doesNotMatch(back.stdout, /\[y\/N\]/);
            assert.ok(ran(back), back.stdout);
            assert.equal(saved(home)[cwd].trustedBefore.length, 2);
        });

        test('旧版记下的「不信任」（可能来自管道里随便的一行）不算数：再问一次', async () => {
            const cwd = workdir();
            const home = workdir();
            writePolicies(cwd, { run_shell: 'allow' });
            await runAgent(stage, { cwd, input: ['y'], env: { HOME: home } });
            // 改成旧版的记录：同样的指纹、不信任、没有 trustedBefore
            const { fingerprint } = saved(home)[cwd];
            fs.writeFileSync(path.join(home, TRUST_FILE), JSON.stringify({ [cwd]: { trusted: false, fingerprint } }));
            const r = await runAgent(stage, { cwd, input: [], env: { HOME: home } });
            assert.match(r.stdout, /信任文件夹 .* 吗？\n\[y\/N\]\n（没有回答：输入已经结束。/);
            assert.doesNotMatch(r.stdout, /上次在终端里答了 n/);
        });
    });
}

// 终端里（全屏界面）：明确答 n 才记下；答别的字只管这一次
describe('终端里的信任回答', { skip: noTmux }, () => {
    for (const stage of HARDENED_ONLY) {
        test(`${stage}：答别的字不记下，下次再问；明确答 n 记下，下次不问并说明怎么重新询问`, async () => {
            const cwd = workdir();
            const home = workdir();
            writePolicies(cwd, { run_shell: 'allow' });
            // Day 15：有一台 MCP 服务器，面板上 MCP 那一行在回答之前说在等信任问题，不说「连接中…」
            const demo = path.join(REPO_ROOT, stage, 'demo-server.mjs');
            fs.writeFileSync(path.join(cwd, '.geekagent', 'mcp.json'), JSON.stringify({ mcpServers: { demo: { command: 'node', args: [demo] } } }));
            const fake = await startFakeOpenAI();
            const start = () => new Terminal(stage, { cols: 160, rows: 30, cwd, env: { HOME: home, OPENAI_BASE_URL: fake.url } });
            try {
                const other = start();
                try {
                    const question = await other.shows('[y/N]');
                    assert.match(question, /MCP 等待信任回答/);
                    assert.doesNotMatch(question, /连接中/);
                    await other.answer('hello');
                    await other.shows('没有明确答 n');
                    other.enter('/exit');
                    await other.exited();
                } finally {
                    other.close();
                }
                assert.ok(!fs.existsSync(path.join(home, TRUST_FILE)), '答别的字不该记下');

                const no = start();
                try {
                    await no.answer('n');
                    await no.shows('已记下：不信任');
                    no.enter('/exit');
                    await no.exited();
                } finally {
                    no.close();
                }
                assert.equal(saved(home)[cwd].trusted, false);

                const again = start();
                try {
                    await again.shows('上次在终端里答了 n');
                    await again.shows('未信任此文件夹：');
                    assert.doesNotMatch(again.text(true), /\[y\/N\]/);
                    again.enter('/exit');
                    await again.exited();
                } finally {
                    again.close();
                }
            } finally {
                await fake.close();
            }
        });
    }
});
