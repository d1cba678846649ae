// 测试平时跑的是阶段转成 JS 后的入口（test/helpers/compiled.ts，省掉每次启动 tsx 的时间）。
// 这里每个阶段各跑一次读者真正敲的 tsx dayNN/index.ts，确认两条路看到的、模型收到的完全一样。
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent } from '../helpers/agent.ts';
import { REPO_ROOT, stagesFrom } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

for (const stage of stagesFrom('day01')) {
    describe(`${stage}: tsx 入口`, () => {
        test('tsx 跑 index.ts 和测试用的 JS 入口输出相同、请求相同', async () => {
            const hasTools = stage !== 'day01';
            const run = async (entry?: string) => {
                const cwd = workdir({ 'a.txt': '第一行\n' });
                const r = await runAgent(stage, {
                    entry,
                    cwd,
                    input: hasTools ? ['读 a.txt', '/help'] : ['你好', '/help'],
                    replies: hasTools ? [tools(call('c1', 'read', { path: 'a.txt' })), text('读完了')] : [text('你好！')],
                });
                assert.equal(r.code, 0, r.stderr);
                // 两次运行各有各的临时目录、假模型端口和对话 id
                const clean = (s: string) => s.split(cwd).join('<cwd>').split(r.home).join('<home>').replace(/127\.0\.0\.1:\d+/g, '<端口>').replace(/\b[0-9a-f]{8}\b/g, '<id>');
                return { stdout: clean(r.stdout), stderr: clean(r.stderr), bodies: r.requests.map((q) => clean(JSON.stringify(q.body))) };
            };
            const viaTsx = await run(path.join(REPO_ROOT, stage, 'index.ts'));
            const viaJs = await run();
            assert.match(viaTsx.stdout, hasTools ? /读完了/ : /你好！/);
            assert.deepEqual(viaJs, viaTsx);
        });
    });
}
