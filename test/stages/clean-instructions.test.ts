// 系统提示干净：AGENTS.md 和 read 一样只读根目录里的普通文件（指向 /proc/self/environ 的链接、FIFO 都不读）；
// 系统提示发出之前脱敏（AGENTS.md、召回的记忆里的密钥）。经真实入口、管道输入、假 OpenAI 服务验证：看模型实际收到了什么。
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { text } from '../../scripts/fake-model/replies.ts';
import type { RecordedRequest } from '../../scripts/fake-model/server.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { ownState, workdir } from '../helpers/workdir.ts';

const sent = (requests: RecordedRequest[]) => JSON.stringify(requests.map((q) => q.body));
const systemOf = (q: RecordedRequest): string => q.body.messages[0].role === 'system' ? q.body.messages[0].content : '';
// 名字、格式都不像密钥的值：只有「不读根目录外的文件」挡得住它
const OUTSIDE_MARK = 'outside-mark-Qm47-Wx82';
// 名字像密钥的值（在环境变量里）：系统提示脱敏才挡得住它
const TOKEN = 'Tk5Rw8Lp2Zq7Vn3Xc9Bm';
const NOTE = /AGENTS\.md 指向根目录之外，没有读取/;

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 系统提示里只有根目录里的、脱敏过的内容`, () => {
        test('AGENTS.md 是指向项目外文件的链接：不读，模型收不到那个文件，用户看到说明；拒绝信任的文件夹也一样', async () => {
            const outside = workdir({ 'env.txt': `DEPLOY_HOOK=${OUTSIDE_MARK}\n` });
            const cwd = workdir();
            fs.symlinkSync(path.join(outside, 'env.txt'), path.join(cwd, 'AGENTS.md'));
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('你好')] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 1);
            assert.ok(!sent(r.requests).includes(OUTSIDE_MARK), '项目外的文件进了请求');
            assert.match(systemOf(r.requests[0]), /项目说明（AGENTS\.md）：\n无/);
            assert.match(r.stdout + r.stderr, NOTE);

            // 文件夹的配置要求信任（根目录设在外面），用户拒绝：根目录收回本文件夹，链接照样不读
            fs.mkdirSync(path.join(cwd, '.geekagent'), { recursive: true });
            fs.writeFileSync(path.join(cwd, '.geekagent', 'GeekAgent.json'), JSON.stringify({ root: outside, tools: {} }));
            const declined = await runAgent(stage, { cwd, input: ['n', '你好'], replies: [text('你好')] });
            assert.equal(declined.code, 0, declined.stderr);
            assert.match(declined.stdout, /未信任此文件夹/);
            assert.ok(!sent(declined.requests).includes(OUTSIDE_MARK), '项目外的文件进了请求');
            assert.match(declined.stdout + declined.stderr, NOTE);
        });

        test('AGENTS.md 指向 /proc/self/environ：整个环境不进系统提示', { skip: !fs.existsSync('/proc/self/environ') }, async () => {
            const cwd = workdir();
            fs.symlinkSync('/proc/self/environ', path.join(cwd, 'AGENTS.md'));
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('你好')], env: { GEEKAGENT_TEST_MARK: OUTSIDE_MARK } });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(!sent(r.requests).includes(OUTSIDE_MARK), '环境变量进了请求');
            assert.match(r.stdout + r.stderr, NOTE);
        });

        test('AGENTS.md 是 FIFO（没有人写）：不读、启动不卡住', async () => {
            const cwd = workdir();
            execFileSync('mkfifo', [path.join(cwd, 'AGENTS.md')]);
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('你好')], timeoutMs: 20_000 });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 1);
            assert.match(r.stdout + r.stderr, /AGENTS\.md 不是普通文件，没有读取/);
        });

        test('AGENTS.md 里的密钥：系统提示发出之前脱敏', async () => {
            const cwd = workdir({ 'AGENTS.md': `部署时用令牌 ${TOKEN} 登录。\n` });
            const r = await runAgent(stage, { cwd, input: ['怎么部署？'], replies: [text('见说明')], env: { SERVICE_TOKEN: TOKEN } });
            assert.equal(r.code, 0, r.stderr);
            assert.match(systemOf(r.requests[0]), /部署时用令牌 \[REDACTED:SERVICE_TOKEN\] 登录。/);
            assert.ok(!sent(r.requests).includes(TOKEN), '模型收到了密钥');
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 召回的记忆进系统提示之前脱敏`, () => {
        test('memory.json 里记着密钥：自动召回放进系统提示时换成脱敏标记', async () => {
            const cwd = workdir({ '.geekagent/memory.json': JSON.stringify([`docker 部署令牌是 ${TOKEN}`]) });
            ownState(cwd, '.geekagent/memory.json');
            const r = await runAgent(stage, { cwd, input: ['docker 部署令牌是什么？'], replies: [text('见记忆')], env: { SERVICE_TOKEN: TOKEN } });
            assert.equal(r.code, 0, r.stderr);
            assert.match(systemOf(r.requests[0]), /docker 部署令牌是 \[REDACTED:SERVICE_TOKEN\]/, '记忆应该被召回');
            assert.ok(!sent(r.requests).includes(TOKEN), '模型收到了密钥');
        });
    });
}
