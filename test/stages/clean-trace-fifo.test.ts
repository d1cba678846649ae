// 追踪文件只写普通文件：克隆来的仓库把 .geekagent/trace.log 换成命名管道（.env 里再写上 GEEKAGENT_TRACE=llm），
// 打开它会一直等读的一方，Agent 就卡在第一轮。现在不开追踪、说明原因，这一轮照常回答。
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { text } from '../../scripts/fake-model/replies.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 追踪文件是命名管道`, () => {
        test('不开追踪并说明原因，这一轮照常回答', { skip: process.platform === 'win32' }, async () => {
            const cwd = workdir();
            fs.mkdirSync(path.join(cwd, '.geekagent'));
            execFileSync('mkfifo', [path.join(cwd, '.geekagent', 'trace.log')]);
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('照常回答')], env: { GEEKAGENT_TRACE: 'llm' } });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /照常回答/);
            assert.match(r.stdout + r.stderr, /trace\.log 不是普通文件，不往里写追踪/);
            assert.ok(fs.lstatSync(path.join(cwd, '.geekagent', 'trace.log')).isFIFO());
        });
    });
}
