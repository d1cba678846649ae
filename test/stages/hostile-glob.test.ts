// 恶意输入不让 Agent 卡死：glob 的模式来自模型、不用确认。回溯正则遇到 *a*a*a…*b 和一个长文件名，
// 要试的切法随星号个数指数增长（12 个星号对 100 个字符约 10^15 种），Agent 就再也不回答了。
// 这里不量时间：Agent 在运行器平常的期限内回答、退出，结果也对，就说明匹配没有回溯。
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

const PATTERN = '*a*a*a*a*a*a*a*a*a*a*a*a*b';

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: glob 的模式卡不住 Agent`, () => {
        test('*a*a…*b 对 100 个字符的文件名：照常回答，只匹配以 b 结尾的那个', async () => {
            const miss = 'a'.repeat(100);
            const hit = 'a'.repeat(99) + 'b';
            const cwd = workdir({ [miss]: '', [hit]: '', 'sub/x.txt': '' });
            const r = await runAgent(stage, { cwd, input: ['找一下文件', '再找 txt'], replies: [
                tools(call('g1', 'glob', { pattern: PATTERN })),
                text('找到了'),
                tools(call('g2', 'glob', { pattern: '**/{x,y}.t?[tx]' })),
                text('也找到了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.g1, `匹配到 1 个文件：\n${hit}`);
            assert.equal(r.results.g2, '匹配到 1 个文件：\nsub/x.txt');
            assert.match(r.stdout, /找到了[\s\S]*也找到了/);
        });

        test('连着的 ** 和 **/*/** 交替的模式在 30 层深的目录树里：照常回答，结果和 **/x 一样', async () => {
            // 每层三个目录，只有 d 往下走；最深处一个 x。不合并 **、不记下走过的（目录, 模式位置）时，要走的路径数以亿计
            const files: Record<string, string> = {};
            let dir = '';
            for (let level = 0; level < 30; level++) {
                for (const side of ['e', 'f']) files[`${dir}${side}/keep`] = '';
                dir += 'd/';
            }
            files[`${dir}x`] = '';
            const cwd = workdir(files);
            const r = await runAgent(stage, { cwd, input: ['找 x'], replies: [
                tools(
                    call('stars', 'glob', { pattern: '**/**/**/**/**/**/**/**/x' }),
                    call('mixed', 'glob', { pattern: '**/*/**/*/**/*/**/*/**/x' }),
                    call('plain', 'glob', { pattern: '**/x' }),
                ),
                text('找到了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.plain, `匹配到 1 个文件：\n${dir}x`);
            assert.equal(r.results.stars, r.results.plain);
            assert.equal(r.results.mixed, r.results.plain);
        });
    });
}
