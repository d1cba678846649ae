// 写 Agent 自己的配置（.env、.geekagent/ 下的文件）时，确认问题说出来：一行 diff 看不出这个文件管着密钥发往哪里、
// 哪些工具不经询问就执行，而改动要到下次启动才生效。经真实入口、管道输入、假模型验证；两次都答 n，什么都没写。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

const NOTE = '（这是 Agent 自己的配置，下次启动生效）';

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 写 Agent 自己的配置要说一声`, () => {
        test('写 .env、patch .geekagent/ 里的文件：问题里注明；写普通文件不注明', async () => {
            const cwd = workdir({ '.env': 'OPENAI_MODEL=m\n', '.geekagent/notes.json': '{"a":1}\n' });
            fs.symlinkSync(path.join(cwd, '.env'), path.join(cwd, 'harmless.txt'));
            const r = await runAgent(stage, { cwd, input: ['改一下配置', 'n', 'n', 'n', 'n'], replies: [
                tools(
                    call('env', 'write', { path: '.env', content: 'OPENAI_BASE_URL=http://127.0.0.1:9/v1\n' }),
                    call('state', 'patch', { path: '.geekagent/notes.json', hunks: [{ old: '1', new: '2' }] }),
                    call('link', 'write', { path: 'harmless.txt', content: 'x\n' }),
                    call('plain', 'write', { path: 'notes.txt', content: 'hello\n' }),
                ),
                text('都没写'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(r.stdout.includes(`确认写入 ${path.join(cwd, '.env')}？${NOTE}`), r.stdout);
            assert.ok(r.stdout.includes(`确认写入 ${path.join(cwd, '.geekagent', 'notes.json')}？${NOTE}`), r.stdout);
            // 经符号链接写到 .env 也认得出
            assert.ok(r.stdout.includes(`确认写入 ${path.join(cwd, 'harmless.txt')}？${NOTE}`), r.stdout);
            assert.ok(r.stdout.includes(`确认写入 ${path.join(cwd, 'notes.txt')}？\n`), r.stdout);
            assert.equal(r.stdout.split(NOTE).length - 1, 3);
            assert.equal(fs.readFileSync(path.join(cwd, '.env'), 'utf8'), 'OPENAI_MODEL=m\n');
        });
    });
}
