// 恶意的文件不让 Agent 卡死或撑爆内存：克隆来的文件夹可以把 .env、状态文件、mcp.json 换成命名管道、
// 指向 /dev/zero 的符号链接或者一个巨大的文件。读它们的地方先看清是什么：说一行中文（点名文件、给提示），不读，也不改写它。
// 不量时间：Agent 在运行器平常的期限内回答、退出，就说明没有卡住。
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runAgent, text } from '../helpers/agent.js';
import { stagesFrom } from '../helpers/run-stage.js';
import { workdir } from '../helpers/workdir.js';

const posixOnly = { skip: process.platform === 'win32' };

/** 在 file 处放一个「不该读」的东西：命名管道、指向 /dev/zero 的符号链接，或一个超过上限的（稀疏）文件。 */
function plant(file: string, kind: 'fifo' | 'zero' | 'huge', bytes = 0): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (kind === 'fifo') execFileSync('mkfifo', [file]);
    else if (kind === 'zero') fs.symlinkSync('/dev/zero', file);
    else fs.truncateSync((fs.writeFileSync(file, ''), file), bytes);
}

for (const stage of stagesFrom('day01')) {
    describe(`${stage}: .env 不是普通文件或太大`, () => {
        for (const [kind, why] of [['fifo', '不是普通文件'], ['zero', '不是普通文件'], ['huge', '超过 1 MiB 的上限']] as const) {
            test(`${kind}：说一行、这次不用 .env，照常回答`, posixOnly, async () => {
                const cwd = workdir();
                plant(path.join(cwd, '.env'), kind, 2 * 1024 * 1024);
                const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('照常回答')] });
                assert.equal(r.code, 0, r.stderr);
                assert.match(r.stdout, /照常回答/);
                assert.match(r.stderr, new RegExp(`拒绝读取 \\.env：${why}.*提示：.*（这次不用 \\.env）`));
                assert.equal(r.stderr.match(/拒绝读取/g)?.length, 1, '只说一次');
            });
        }
    });
}

for (const stage of stagesFrom('day08')) {
    describe(`${stage}: 状态文件不是普通文件或太大`, () => {
        test('权限文件是命名管道：和写坏了一样报错退出，不请求模型、不改写它', posixOnly, async () => {
            const cwd = workdir();
            const file = path.join(cwd, '.geekagent', 'GeekAgent.json');
            plant(file, 'fifo');
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('不该回答')] });
            assert.equal(r.code, 1, r.stderr);
            assert.match(r.stderr, /读取 \.geekagent\/GeekAgent\.json 失败：拒绝读取 \.geekagent\/GeekAgent\.json：不是普通文件.*提示：/);
            assert.equal(r.requests.length, 0);
            assert.ok(fs.lstatSync(file).isFIFO());
        });

        test('存档超过 64 MiB：不载入、不覆盖，这次的对话另存', posixOnly, async () => {
            const cwd = workdir();
            const file = path.join(cwd, '.geekagent', 'sessions.json');
            plant(file, 'huge', 65 * 1024 * 1024);
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('照常回答')] });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /照常回答/);
            assert.match(r.stderr, /拒绝读取 \.geekagent\/sessions\.json：超过 64 MiB 的上限/);
            assert.equal(fs.statSync(file).size, 65 * 1024 * 1024, '文件原样保留');
        });
    });
}

for (const stage of stagesFrom('day15')) {
    describe(`${stage}: mcp.json 不是普通文件`, () => {
        test('指向 /dev/zero：和写坏了一样说明，不启动服务器，照常回答', posixOnly, async () => {
            const cwd = workdir();
            plant(path.join(cwd, '.geekagent', 'mcp.json'), 'zero');
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('照常回答')] });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /照常回答/);
            assert.match(r.stderr, /读取 MCP 配置失败：拒绝读取 .*mcp\.json：不是普通文件.*提示：/);
        });
    });
}
