// 提示显示的就是要执行的：双向文字控制符和零宽字符（U+202E、U+2066、U+200B……）到了屏幕上是 \u202e 这样的转义，
// 按双向算法排版的终端没法把命令的一部分显示成注释、把 [y/N] 挪到别处。经真实入口、管道输入（行模式）、假 OpenAI 服务；
// 全屏界面的情形在 test/tui/prompts-tmux.test.ts。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

// 议题列出的每一类都挑一个：阿拉伯字母标记、零宽空格、从右到左覆盖、隔离、词连接符、BOM
const HIDDEN = '\u061c\u200b\u200d\u200f\u202a\u202e\u2060\u2064\u2066\u2069\ufeff';
const SHOWN = '\\u061c\\u200b\\u200d\\u200f\\u202a\\u202e\\u2060\\u2064\\u2066\\u2069\\ufeff';
const RAW = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 屏幕上看不见的字符显示成转义`, () => {
        test('模型回复里的双向控制符和零宽字符显示成 \\u202e 这样的转义', async () => {
            const r = await runAgent(stage, { input: ['你好'], replies: [text(`开头${HIDDEN}结尾`)] });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(r.stdout.includes(`开头${SHOWN}结尾`), r.stdout);
            assert.doesNotMatch(r.stdout, RAW);
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: [y/N] 提示里的命令`, () => {
        test('run_shell 的命令带 U+202E：提示里显示 \\u202e，原样的控制符不到终端；答 n 不执行', async () => {
            const cwd = workdir();
            // 支持双向算法的终端里，U+202E 之后的字倒过来显示：「&& touch ran」看起来像注释的一部分
            const command = `echo ok #\u202e\u2066 && touch ran`;
            const r = await runAgent(stage, { cwd, input: ['跑一下', 'n'], replies: [tools(call('s', 'run_shell', { command })), text('好')] });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(r.stdout.includes('即将执行命令：echo ok #\\u202e\\u2066 && touch ran'), r.stdout);
            assert.doesNotMatch(r.stdout, RAW);
            assert.equal(r.results.s, '已取消执行');
            assert.ok(!fs.existsSync(path.join(cwd, 'ran')));
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 信任问题`, () => {
        test('项目配置里的工具名带 U+202E：信任问题里显示 \\u202e', async () => {
            const cwd = workdir();
            fs.mkdirSync(path.join(cwd, '.geekagent'));
            const tools = { 'run_shell\u202e': 'allow' };
            fs.writeFileSync(path.join(cwd, '.geekagent', 'GeekAgent.json'), JSON.stringify({ root: '..', tools }));
            const r = await runAgent(stage, { cwd, input: ['n'] });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(r.stdout.includes('不经询问直接执行："run_shell\\u202e"'), r.stdout);
            assert.doesNotMatch(r.stdout, RAW);
        });
    });
}
