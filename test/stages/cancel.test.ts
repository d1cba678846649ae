// 取消与退出：正在执行的工具不会拖住退出，shell 命令的进程组随 Agent 一起结束。
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, tools } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { HARDENED_ONLY, startStage } from '../helpers/run-stage.ts';
import { sleepCommand, waitUntil } from '../helpers/wait.ts';

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 工具执行中退出`, () => {
        test('run_shell 跑着一个长命令时收到 SIGINT：退出，命令的进程组不残留，不再请求模型', async () => {
            // 命令自己永远不会结束：Agent 能退出，就说明它没有等这个工具
            const sleep = sleepCommand();
            const fake = await startFakeOpenAI({ replies: [tools(call('c1', 'run_shell', { command: `${sleep.command}; echo done` }))] });
            try {
                // run_shell 默认要确认：管道里的 y 回答它
                const run = startStage(stage, { input: ['跑一个很慢的命令', 'y'], env: { OPENAI_BASE_URL: fake.url } });
                await waitUntil('命令开始执行', sleep.running, run.stdout);
                run.child.kill('SIGINT');
                const r = await run.done;
                assert.match(r.stdout, /bye/);
                assert.equal(r.code, 0, r.stderr);
                assert.equal(fake.requests.length, 1, '取消之后不应再请求模型');
                await waitUntil('shell 命令的进程组被杀掉', () => !sleep.running());
            } finally {
                await fake.close();
            }
        });
    });
}
