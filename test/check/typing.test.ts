// 检查像人一样打字（scripts/check/typist.ts）：一次一行，只在 Agent 等着输入时才打；忙的时候丢掉新来的行的 REPL 也一行不丢。
// 用写在临时目录里的小 Agent：它们只认自己的 busy 标记，不认检查的任何提示文字。
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runLearner } from '../../scripts/check/harness.ts';
import { lastUser } from '../../scripts/check/look.ts';
import { CHECK_QUIET_MS } from '../helpers/wait.ts';
import { workdir } from '../helpers/workdir.ts';

const agent = (source: string): string => path.join(workdir({ 'package.json': '{ "type": "module" }\n', 'index.ts': source }), 'index.ts');

// 原教程那样的 REPL：忙的时候来的行直接丢掉；每一轮先跑一条不出声的命令（子进程），再问模型
const BUSY_REPL = agent(`
import { execFile } from 'node:child_process';
import readline from 'node:readline';
const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
let busy = false;
rl.on('line', async (line) => {
    if (busy) return;
    busy = true;
    await new Promise((resolve) => execFile('sleep', ['0.3'], resolve));
    const res = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.OPENAI_API_KEY },
        body: JSON.stringify({ model: process.env.OPENAI_MODEL, messages: [{ role: 'user', content: line }], stream: true }),
    });
    await res.text();
    busy = false;
    rl.prompt();
});
rl.on('close', () => process.exit(0));
rl.prompt();
`);

describe('像人一样打字', { concurrency: true }, () => {
    test('忙的时候丢行的 REPL：每一行都等它空下来（子进程跑完、模型回完）才打，一行不丢', async () => {
        const run = await runLearner(BUSY_REPL, { lines: ['一', '二', '三'], quietMs: CHECK_QUIET_MS });
        assert.deepEqual(run.requests.map(lastUser), ['一', '二', '三']);
        assert.equal(run.code, 0);
        assert.ok(run.typed.every((t) => !t.forced), JSON.stringify(run.typed));
        assert.ok(run.closed, '最后一行处理完、又在等时关掉 stdin');
    });

    test('提前打的行（{ ahead }）在上一轮还没结束时就到：丢行的 REPL 丢了它', async () => {
        const run = await runLearner(BUSY_REPL, { lines: ['一', { ahead: '提前打的' }, '三'], quietMs: CHECK_QUIET_MS });
        assert.deepEqual(run.requests.map(lastUser), ['一', '三']);
    });

    test('最后一行打完，下一次在等时关掉 stdin：问问题时读到输入结束', async () => {
        const entry = agent(`
import readline from 'node:readline';
const rl = readline.createInterface({ input: process.stdin });
rl.once('line', (line) => {
    process.stdout.write('要执行「' + line + '」吗？[y/N] ');
    rl.once('line', () => console.log('不该到这里'));
    rl.once('close', () => { console.log('输入结束：当作否'); process.exit(0); });
});
`);
        const run = await runLearner(entry, { lines: ['跑个命令'], quietMs: CHECK_QUIET_MS });
        assert.equal(run.code, 0);
        assert.match(run.stdout, /\[y\/N\] 输入结束：当作否/);
        assert.ok(run.closed && run.closed.at >= run.typed[0].at);
        assert.deepEqual(run.untyped, []);
    });
});
