// 提示显示的就是要执行的（全屏界面，tmux 里的真实终端）：1101 行的命令挤不走自己的第一行——问题钉在日志区底部、
// [y/N] 正上方，显示开头、全文的行数和字符数、最后一行，一直到回答为止；回答 d 翻出来的全文进日志，问题仍钉在原处。
// 命令里的 U+202E 显示成 \u202e。两行私钥标记中间夹着的命令照原文显示，原文里的密钥说出来。
// 行模式的情形在 test/stages/prompts-long.test.ts、prompts-bidi.test.ts、prompts-secrets.test.ts。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { noTmux, Terminal } from '../helpers/terminal.ts';

const FIRST = 'touch FIRST\u202e-LINE-RAN';
const FIRST_SHOWN = '即将执行命令：touch FIRST\\u202e-LINE-RAN';
const LONG_COMMAND = [FIRST, ...Array.from({ length: 1099 }, (_, i) => `echo filler ${i + 1}`), 'echo LAST-LINE'].join('\n');
const KEY_ATTACK = 'echo "-----BEGIN PRIVATE KEY-----" >/dev/null; touch X; echo "-----END PRIVATE KEY-----" >/dev/null; echo ok';
const OPENAI_KEY = 'sk-test-key-123456';   // 测试环境里 OPENAI_API_KEY 的值（run-stage.ts）
const SIZE = `全文共 1101 行 / ${`即将执行命令：${LONG_COMMAND}`.length} 字符`;

describe('全屏界面里的长命令', { skip: noTmux }, () => {
    for (const stage of HARDENED_ONLY) {
        test(`${stage}：问题钉在 [y/N] 上面，第一行、大小、最后一行一直看得到；d 翻出全文，答 n 不执行`, async () => {
            const fake = await startFakeOpenAI({
                replies: [tools(call('s', 'run_shell', { command: LONG_COMMAND })), text('那就不跑了')],
            });
            const term = new Terminal(stage, { cols: 120, rows: 40, env: { OPENAI_BASE_URL: fake.url } });
            try {
                await term.shows('You ›');
                term.enter('跑一下');
                let screen = await term.shows('[y/N]');
                const pinned = (s: string) => s.includes(FIRST_SHOWN) && s.includes(SIZE) && s.includes('echo LAST-LINE');
                assert.ok(pinned(screen), screen);
                assert.ok(!screen.includes('\u202e'), '原样的 U+202E 到了终端');
                assert.ok(!screen.includes('echo filler 20\n'), '问题只带开头 20 行');

                // d：第 1 页全文（200 行）进日志，日志区停在这一页的末尾；问题仍在 [y/N] 上面
                await term.answer('d');
                screen = await term.shows('echo filler 199');
                assert.ok(pinned(screen), screen);

                screen = await term.answer('n');
                assert.ok(pinned(screen) && screen.includes('echo filler 199'), screen);
                screen = await term.shows('那就不跑了');
                assert.match(screen, /echo LAST-LINE → n/);
                assert.equal(fake.requests[1].body.messages.at(-1).content, '已取消执行');
                assert.ok(!fs.readdirSync(term.cwd).some((name) => name.startsWith('FIRST')), path.join(term.cwd, '不该有文件'));
                term.enter('/exit');
                await term.exited();
                assertNoRejections(fake);
            } finally {
                term.close();
                await fake.close();
            }
        });

        test(`${stage}：私钥标记中间夹着的 touch X 在全屏提示里看得见，答 y 执行的就是它；原文里的密钥说出名字`, async () => {
            const command = `${KEY_ATTACK}; echo ${OPENAI_KEY}`;
            const fake = await startFakeOpenAI({ replies: [tools(call('s', 'run_shell', { command })), text('跑完了')] });
            const term = new Terminal(stage, { cols: 200, rows: 30, env: { OPENAI_BASE_URL: fake.url } });
            try {
                await term.shows('You ›');
                term.enter('跑一下');
                const screen = await term.shows('[y/N]');
                assert.ok(screen.includes(`即将执行命令：${command}`), screen);
                assert.ok(screen.includes('其中 1 处是你的密钥 OPENAI_API_KEY'), screen);
                await term.answer('y');
                await term.shows('跑完了');
                assert.ok(fs.existsSync(path.join(term.cwd, 'X')), '答了 y：看到的 touch X 执行了');
                const result = fake.requests[1].body.messages.at(-1).content;
                assert.ok(result.includes('[REDACTED:OPENAI_API_KEY]') && !result.includes(OPENAI_KEY), result);
                term.enter('/exit');
                await term.exited();
                assertNoRejections(fake);
            } finally {
                term.close();
                await fake.close();
            }
        });

        test(`${stage}：终端太矮、问题放不下时，留住大小、第一行和最后一行，中间说明放不下几行`, async () => {
            const fake = await startFakeOpenAI({
                replies: [tools(call('s', 'run_shell', { command: LONG_COMMAND })), text('那就不跑了')],
            });
            const term = new Terminal(stage, { cols: 100, rows: 20, env: { OPENAI_BASE_URL: fake.url } });
            try {
                await term.shows('You ›');
                term.enter('跑一下');
                const screen = await term.shows('[y/N]');
                for (const shown of [SIZE, FIRST_SHOWN, '这里放不下，回答 d 分页查看全文', 'echo LAST-LINE']) assert.ok(screen.includes(shown), `${shown}\n${screen}`);
                // 日志区至少留三分之一：问题上面还看得到用户刚才那句话
                assert.match(screen, /You › 跑一下/);
                await term.answer('n');
                await term.shows('那就不跑了');
                term.enter('/exit');
                await term.exited();
                assertNoRejections(fake);
            } finally {
                term.close();
                await fake.close();
            }
        });
    }
});
