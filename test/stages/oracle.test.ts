// 含密钥的文件不当猜密钥的神谕：从它的内容算出来的回答（片段找到没有、内容相同没有、搜索命中没有），问过你才交给模型。
// 重放攻击：脚本化的模型对 .env 的一行（和一个含你的密钥值的文件）各猜一次对的、一次错的，patch 用 old == new，write 原样的内容，
// search 猜前缀；模型收到的回答对错一样（或者先问了 [y/N]），也没有密钥原值。别的文件照旧直接说为什么没改成。经真实入口、管道输入、假 OpenAI 服务。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import type { RecordedRequest } from '../../scripts/fake-model/server.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

const PASSWORD = 'hunter2-Qx7Lw9Rt';
const DOTENV = `DB_HOST=db.internal\nDB_PASSWORD=${PASSWORD}\n`;
const TOKEN = 'Zq8wN3vL5pR7tY2uX9kM';   // 你环境里的密钥（名字带 TOKEN），也写在一个普通的 json 里

const same = (id: string, file: string, guess: string) => call(id, 'patch', { path: file, hunks: [{ old: guess, new: guess }] });
const asked = (stdout: string) => stdout.match(/[^\n]*里有密钥，[^\n]*\n这个结果是从文件内容算出来的[^\n]*\n\[y\/N\]/g) ?? [];

/** 模型收到的全部文字，除了它自己说的话（assistant 消息里的工具参数是它猜的，原样回传）。 */
function sentToModel(requests: RecordedRequest[]): string {
    return JSON.stringify(requests.map((q) => q.body.messages.filter((m: any) => m.role !== 'assistant')));
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 含密钥的文件不当神谕`, () => {
        test('.env：old == new 的 patch 猜对猜错、write 原样的内容和改过的内容、search 猜对猜错的前缀——不同意时模型收到的都一样，没有密钥', async () => {
            const cwd = workdir({ '.env': DOTENV });
            const r = await runAgent(stage, {
                cwd,
                // y：信任文件夹（这是你自己的 .env）；之后四个问题都答 n
                input: ['y', '整理一下配置', 'n', 'n', 'n', 'n'],
                replies: [
                    tools(
                        same('right', '.env', 'DB_PASSWORD=hunter2-Q'),
                        same('wrong', '.env', 'DB_PASSWORD=hunter2-R'),
                        call('same', 'write', { path: '.env', content: DOTENV }),
                        call('other', 'write', { path: '.env', content: DOTENV.replace(PASSWORD, 'hunter2-Rxxxxxxx') }),
                        call('hit', 'search', { pattern: 'DB_PASSWORD=hunter2-Q', path: '.env' }),
                        call('miss', 'search', { pattern: 'DB_PASSWORD=hunter2-R', path: '.env' }),
                    ),
                    text('好'),
                ],
            });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.right, '已取消修改');
            assert.equal(r.results.wrong, r.results.right, '猜对猜错的回答不一样：这是神谕');
            assert.equal(r.results.same, '已取消写入', '原样的内容不能不问就说「已写入」');
            assert.equal(r.results.other, r.results.same);
            assert.equal(r.results.hit.replace('hunter2-Q', '…'), r.results.miss.replace('hunter2-R', '…'), r.results.hit);
            assert.match(r.results.hit, /含密钥的文件不搜/);
            assert.ok(!sentToModel(r.requests).includes(PASSWORD.slice(0, 10)), '模型收到了密钥');
            // 问题里说出结果：内容相同、哪个片段没找到；改了内容的照常显示 diff
            const questions = asked(r.stdout);
            assert.equal(questions.length, 3, r.stdout);
            assert.match(questions[0], /\.env 里有密钥，这次改不成：修改后的内容和原文相同/);
            assert.match(questions[1], /\.env 里有密钥，这次改不成：没有找到片段：DB_PASSWORD=hunter2-R/);
            assert.match(questions[2], /\.env 里有密钥，新内容和现在的内容相同，不会改动/);
            assert.match(r.stdout, /-DB_PASSWORD=hunter2-Qx7Lw9Rt\n\+DB_PASSWORD=hunter2-Rxxxxxxx\n确认写入 .*\.env？/);
            assert.equal(fs.readFileSync(path.join(cwd, '.env'), 'utf8'), DOTENV);
        });

        test('含你的密钥值的普通文件：patch、search 猜对猜错一样；别的文件照旧不问、直接说为什么没改成', async () => {
            const cwd = workdir({ 'deploy.json': `{"token": "${TOKEN}"}\n`, 'notes.txt': 'hello\n' });
            const r = await runAgent(stage, {
                cwd,
                env: { DEPLOY_TOKEN: TOKEN },
                input: ['看看部署配置', 'n', 'n'],
                replies: [
                    tools(
                        same('right', 'deploy.json', '"token": "Zq8w'),
                        same('wrong', 'deploy.json', '"token": "Zq8x'),
                        call('hit', 'search', { pattern: '"token": "Zq8w' }),
                        call('miss', 'search', { pattern: '"token": "Zq8x' }),
                        same('plain_same', 'notes.txt', 'hello'),
                        same('plain_missing', 'notes.txt', 'nope'),
                        call('plain_hit', 'search', { pattern: 'HELLO' }),
                    ),
                    text('好'),
                ],
            });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(asked(r.stdout).length, 2, r.stdout);
            assert.equal(r.results.right, '已取消修改');
            assert.equal(r.results.wrong, r.results.right);
            assert.equal(r.results.hit.replace('Zq8w', '…'), r.results.miss.replace('Zq8x', '…'), r.results.hit);
            assert.ok(!sentToModel(r.requests).includes(TOKEN), '模型收到了密钥');
            assert.equal(r.results.plain_same, '工具执行失败：修改后的内容和原文相同，没有做任何修改');
            assert.equal(r.results.plain_missing, '工具执行失败：没有找到片段：nope');
            assert.equal(r.results.plain_hit, '匹配 "HELLO" 共 1 行：\nnotes.txt:1: hello');
        });

        test('答 y 才告诉模型：patch 说内容相同，write 说没有写入（不说「已写入」），文件不动；普通文件的原样 write 不问、也说没有写入', async () => {
            const cwd = workdir({ '.env': DOTENV, 'notes.txt': 'hello\n' });
            const r = await runAgent(stage, {
                cwd,
                input: ['y', '整理一下配置', 'y', 'y'],
                replies: [tools(
                    same('p', '.env', 'DB_HOST=db.internal'),
                    call('w', 'write', { path: '.env', content: DOTENV }),
                    call('plain', 'write', { path: 'notes.txt', content: 'hello\n' }),
                ), text('好')],
            });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(asked(r.stdout).length, 2, r.stdout);
            assert.equal(r.results.p, '工具执行失败：修改后的内容和原文相同，没有做任何修改');
            assert.equal(r.results.w, '.env 的内容本来就是这样，没有写入');
            assert.equal(r.results.plain, 'notes.txt 的内容本来就是这样，没有写入');
            assert.equal(fs.readFileSync(path.join(cwd, '.env'), 'utf8'), DOTENV);
        });
    });
}
