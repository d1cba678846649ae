// 管道输出一个字也不丢：读输出的一方读得慢（agent | (sleep 2; cat)）时，Agent 要等 stdout、stderr 都写完才退出。
// 做法：一启动就暂停读 Agent 的 stdout，等它把一段很长的回复写进（已经满了的）管道、走完退出流程，再接着读。
// 没等写完就 process.exit 的 Agent 在暂停期间就结束了，后半截回复和 bye 丢在它的写缓冲里。
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { HARDENED_ONLY, startStage } from '../helpers/run-stage.ts';
import { sleep } from '../helpers/wait.ts';

// 30 万字节：管道（64 KiB）加上测试这头的读缓冲也装不下，Agent 一定有一部分还排在自己的写缓冲里
const REPLY = `开头${'长回复'.repeat(33_000)}结尾`;
// 暂停读多久：只是给没修好的 Agent 足够的时间退出（它一退出这里就不再等）；修好的 Agent 在这期间一直等着，不靠计时判断对错
const PAUSE_MS = 3000;

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 管道输出不丢`, () => {
        test('读的一方暂停一会儿再读：整段回复和 bye 都收到，退出码 0', async () => {
            const fake = await startFakeOpenAI({ replies: [{ kind: 'text', text: REPLY, chunkSize: 5000 }] });
            try {
                const run = startStage(stage, { input: ['说一段很长的话'], env: { OPENAI_BASE_URL: fake.url } });
                run.child.stdout!.pause();
                await fake.waitForRequest(1);
                // 回复发出去之后，等 Agent 退出、最多 PAUSE_MS：修好的 Agent 不会在输出读完之前退出
                const exited = once(run.child, 'exit');
                await Promise.race([exited, sleep(PAUSE_MS)]);
                run.child.stdout!.resume();
                const r = await run.done;
                assert.equal(r.code, 0, r.stderr);
                assert.ok(r.stdout.includes(REPLY), `回复不完整：收到 ${r.stdout.length} 个字符`);
                assert.match(r.stdout, /\nbye\n/);
                assert.ok(r.stdout.indexOf(REPLY) < r.stdout.lastIndexOf('bye'), 'bye 在回复之后');
            } finally {
                await fake.close();
            }
        });
    });
}
