// Agent 启动的东西不比它活得久，用 setsid 另起会话的也一样：它离开了 run_shell 的进程组，杀组杀不到；
// 靠的是每个子进程环境里这次运行的标记（GEEKAGENT_RUN），退出时在 /proc 里找出来杀掉。只在 Linux 上有 /proc。
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { HARDENED_ONLY, startStage } from '../helpers/run-stage.ts';
import { processesWith, sleepCommand, waitUntil } from '../helpers/wait.ts';

const noProc = process.platform !== 'linux' && '需要 Linux 的 /proc';

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: setsid 出去的进程也活不过 Agent`, { skip: noProc }, () => {
        for (const how of ['setsid', 'setsid -f'] as const) {
            test(`run_shell 里 ${how} 启动的后台任务在 Agent 退出（EOF）后被杀掉`, async () => {
                const background = sleepCommand();
                const command = how === 'setsid' ? `setsid ${background.command} > /dev/null 2>&1 &` : `setsid -f ${background.command} > /dev/null 2>&1`;
                const fake = await startFakeOpenAI({ replies: [tools(call('c1', 'run_shell', { command })), text('started')] });
                try {
                    // stdin 先不关：等回复和后台任务都在了（它确实跑起来过），再发 EOF 让 Agent 退出
                    const run = startStage(stage, { input: ['start it', 'y'], holdStdin: true, env: { OPENAI_BASE_URL: fake.url } });
                    await waitUntil('回复和后台任务', () => run.stdout().includes('started') && background.running(), run.stdout);
                    run.end();
                    const r = await run.done;
                    assert.equal(r.code, 0, r.stderr);
                    assert.match(r.stdout, /bye/);
                    await waitUntil(`${how} 的后台任务在 Agent 退出后被杀掉`, () => !background.running(), () => processesWith(background.command).join('\n'));
                } finally {
                    await fake.close();
                    for (const line of processesWith(background.command)) {
                        try { process.kill(Number(line.split(':')[0]), 'SIGKILL'); } catch { /* 已经结束 */ }
                    }
                }
            });
        }
    });
}
