// 取消与退出：正在执行的工具不会拖住退出，shell 命令的进程组随 Agent 一起结束。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startFakeOpenAI, type FakeServer } from '../helpers/fake-openai.js';
import { runStage, stagesFrom } from '../helpers/run-stage.js';

// 命令行里带着 marker 的进程（读 /proc 下每个进程的 cmdline）
function processesWith(marker: string): string[] {
    const found: string[] = [];
    for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
        try {
            const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
            if (cmd.includes(marker)) found.push(`${pid}: ${cmd}`);
        } catch { /* 进程刚好结束 */ }
    }
    return found;
}

for (const stage of stagesFrom('day04')) {
    describe(`${stage}: 工具执行中退出`, () => {
        let fake: FakeServer;
        before(async () => {
            fake = await startFakeOpenAI();
        });
        after(() => fake.close());

        test('run_shell 跑着一个长命令时收到 SIGINT：很快退出，命令的进程组不残留，不再请求模型', async () => {
            const marker = `${Math.floor(Math.random() * 1e6) + 1000}.25`;   // sleep 的秒数兼作标记
            fake.requests.length = 0;
            fake.push({ kind: 'tools', calls: [{ name: 'run_shell', arguments: JSON.stringify({ command: `sleep ${marker}; echo done` }) }] });
            // day08 起用 GeekAgent.json 放行 run_shell，免得还要答确认；day04 用管道里的 y 回答
            const started = Date.now();
            const r = await runStage(stage, {
                input: ['跑一个很慢的命令', 'y'],
                env: { OPENAI_BASE_URL: fake.url },
                timeoutMs: 20_000,
                onSpawn: (child) => {
                    const poll = setInterval(() => {
                        if (processesWith(`sleep ${marker}`).length) {
                            clearInterval(poll);
                            child.kill('SIGINT');
                        }
                    }, 50);
                    child.on('exit', () => clearInterval(poll));
                },
            });
            assert.ok(Date.now() - started < 8_000, '退出被正在执行的工具拖住了');
            assert.match(r.stdout, /bye/);
            assert.equal(r.code, 0, r.stderr);
            assert.equal(fake.requests.length, 1, '取消之后不应再请求模型');
            await new Promise((res) => setTimeout(res, 200));
            assert.deepEqual(processesWith(`sleep ${marker}`), [], 'shell 命令的进程残留');
        });
    });
}
