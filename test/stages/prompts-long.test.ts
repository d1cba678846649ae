// 提示显示的就是要执行的（行模式）：太长的命令只显示开头、最后一行和全文的大小，回答 d 分页看全文；
// 写文件的 diff 是逐行比较出来的，再长也能在回答之前整个看到。经真实入口、管道输入、假 OpenAI 服务。
// 全屏界面的情形在 test/tui/prompts-tmux.test.ts。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

const count = (haystack: string, needle: string): number => haystack.split(needle).length - 1;
const numbered = (n: number, word = 'line') => Array.from({ length: n }, (_, i) => `${word} ${i + 1}`).join('\n') + '\n';

// 1101 行：真正要执行的在第一行，后面 1099 行看着无害，把第一行挤出全屏界面 1000 行的日志
const LONG_COMMAND = ['touch FIRST-LINE-RAN', ...Array.from({ length: 1099 }, (_, i) => `echo filler ${i + 1}`), 'echo LAST-LINE'].join('\n');
const PROMPT_CHARS = `即将执行命令：${LONG_COMMAND}`.length;

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 长的确认提示`, () => {
        test('1101 行的命令：提示显示开头、全文的行数和字符数、最后一行；d 分页看全文再问；答 n 不执行', async () => {
            const cwd = workdir();
            const r = await runAgent(stage, {
                cwd,
                input: ['跑一下', 'd', 'd', 'n'],
                replies: [tools(call('s', 'run_shell', { command: LONG_COMMAND })), text('好')],
            });
            assert.equal(r.code, 0, r.stderr);
            const [question] = r.stdout.split('[y/N]');
            // 先说全文多大，再是开头 20 行、省略了几行、最后一行
            assert.ok(question.includes(`（全文共 1101 行 / ${PROMPT_CHARS} 字符，这里只显示了一部分；回答 d 分页查看全文）\n即将执行命令：touch FIRST-LINE-RAN\necho filler 1\n`), question);
            assert.ok(question.includes('echo filler 19\n…（中间 1080 行没有显示）\necho LAST-LINE\n'), question);
            assert.ok(!question.includes('echo filler 20\n'), '问题只带开头 20 行');
            // 回答 d：按页显示全文（每页 200 行），再问一次；第二个 d 看下一页
            assert.equal(count(r.stdout, '[y/N]'), 3, r.stdout);
            assert.ok(r.stdout.includes('（全文第 1/6 页：第 1–200 行，共 1101 行）\n即将执行命令：touch FIRST-LINE-RAN\n'), r.stdout);
            assert.ok(r.stdout.includes('（全文第 2/6 页：第 201–400 行，共 1101 行）\necho filler 200\n'), r.stdout);
            assert.ok(r.stdout.includes('echo filler 399\n'));
            assert.ok(!r.stdout.includes('echo filler 400\n'), '只翻了两页');
            assert.equal(r.results.s, '已取消执行');
            assert.ok(!fs.existsSync(path.join(cwd, 'FIRST-LINE-RAN')));
        });

        test('diff 逐行比较：300 行的文件改中间一行是一行 - 一行 +；相距很远的两处修改之间的行不算改动', async () => {
            const cwd = workdir({ 'a.txt': numbered(300), 'b.txt': numbered(300) });
            const far = numbered(300).replace('line 50\n', 'fifty\n').replace('line 250\n', 'two-fifty\n');
            const r = await runAgent(stage, {
                cwd,
                input: ['改两个文件', 'y', 'y'],
                replies: [tools(
                    call('p', 'patch', { path: 'a.txt', hunks: [{ old: 'line 150\n', new: 'changed 150\n' }] }),
                    call('w', 'write', { path: 'b.txt', content: far }),
                ), text('改好了')],
            });
            assert.equal(r.code, 0, r.stderr);
            const changed = r.stdout.split('\n').filter((line) => /^[-+]/.test(line));
            assert.deepEqual(changed, ['-line 150', '+changed 150', '-line 50', '+fifty', '-line 250', '+two-fifty'], r.stdout);
            assert.ok(r.stdout.includes(' line 53\n…（中间 193 行没有改动）\n line 247\n'), r.stdout);
            assert.equal(fs.readFileSync(path.join(cwd, 'b.txt'), 'utf8'), far);
        });

        test('超过 100 行的 diff：回答 d 把整个 diff 打出来再问，答 y 之前每一行都看得到', async () => {
            const cwd = workdir();
            const content = numbered(150, 'new');
            const r = await runAgent(stage, {
                cwd,
                input: ['写个文件', 'd', 'y'],
                replies: [tools(call('w', 'write', { path: 'big.txt', content })), text('写好了')],
            });
            assert.equal(r.code, 0, r.stderr);
            const beforeAnswer = r.stdout.slice(0, r.stdout.lastIndexOf('[y/N]'));
            for (let i = 1; i <= 150; i++) assert.ok(beforeAnswer.includes(`\n+new ${i}\n`), `回答之前没看到 +new ${i}`);
            assert.match(beforeAnswer, /确认写入 .*big\.txt？/);
            assert.equal(count(r.stdout, '[y/N]'), 2);
            assert.equal(fs.readFileSync(path.join(cwd, 'big.txt'), 'utf8'), content);
        });
    });
}
