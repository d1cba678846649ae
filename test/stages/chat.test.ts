// Day 1 的行为：经真实入口、管道输入、假 OpenAI 服务验证。只在加固版上跑（课由检查和 lessons.test.ts 测）。
// 出错与重试在 chat-errors.test.ts（那里要等重试的间隔，分开跑不拖慢这里）。
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { text } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { runAgent, userTexts } from '../helpers/agent.ts';
import { HARDENED_ONLY, runStage } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 流式多轮对话`, () => {
        test('多轮：第二次请求带着第一轮的问答；管道输入按顺序处理，EOF 后退出码 0', async () => {
            const r = await runAgent(stage, { input: ['你好', '我刚才说了什么？'], replies: [text('你好！我是助手。'), text('你刚才说了你好。')] });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /You › 你好\n你好！我是助手。/);
            assert.match(r.stdout, /你刚才说了你好。/);
            assert.match(r.stdout, /bye/);
            assert.equal(r.requests.length, 2);
            const second = r.requests[1].body;
            assert.equal(second.stream, true);
            // Day 9 起每个请求前面有一条重建的系统提示，不属于历史
            assert.deepEqual(second.messages.filter((m: any) => m.role !== 'system').slice(0, 3), [
                { role: 'user', content: '你好' },
                { role: 'assistant', content: '你好！我是助手。' },
                { role: 'user', content: '我刚才说了什么？' },
            ]);
            assert.equal(r.requests[0].headers.authorization, 'Bearer sk-test-key-123456');
        });

        test('/reset 清空历史；未知命令给出提示', async () => {
            const r = await runAgent(stage, { input: ['第一句', '/reset', '/nope', '第二句'], replies: [text('A'), text('B')] });
            assert.equal(r.code, 0);
            assert.match(r.stdout, /(对话记忆|对话历史)已清空/);
            assert.match(r.stdout, /未知命令：\/nope/);
            assert.deepEqual(userTexts(r.requests[1].body), ['第二句']);
            assert.equal(r.requests[1].body.messages.length, userTexts(r.requests[1].body).length + (r.requests[1].body.messages[0].role === 'system' ? 1 : 0));
        });

        test('思考内容显示但不存进历史', async () => {
            const r = await runAgent(stage, { input: ['2+2=?', '再说一次'], replies: [{ kind: 'text', text: '答案是 4。', reasoning: '先算 2+2。' }, text('ok')] });
            assert.match(r.stdout, /思考：\n先算 2\+2。/);
            const history = r.requests[1].body.messages.filter((m: any) => m.role === 'assistant');
            assert.deepEqual(history, [{ role: 'assistant', content: '答案是 4。' }]);
        });

        // 缺少密钥不再在启动时退出（退出码 1）：照常启动，要请求模型的一轮报错、撤销（见 order-nokey.test.ts）
        test('缺少 API key：提示 OPENAI_API_KEY 和 .env，这一轮失败，不发请求', async () => {
            const r = await runAgent(stage, { input: ['hi'], env: { OPENAI_API_KEY: undefined } });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stderr, /请求失败：缺少 OPENAI_API_KEY/);
            assert.match(r.stderr, /OPENAI_API_KEY/);
            assert.match(r.stderr, /\.env/);
            assert.match(r.stderr, /把 \.env\.example 复制为 \.env/);
            assert.match(r.stderr, new RegExp(`npm run demo -- ${stage}`));
            assert.equal(r.requests.length, 0);
        });

        test('缺少 API key 但已有 .env：只让人填上，不再让人复制', async () => {
            const cwd = workdir({ '.env': 'OPENAI_MODEL=m\n' });
            const r = await runStage(stage, { input: ['hi'], cwd, env: { OPENAI_API_KEY: undefined } });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stderr, /请在 \.env 里填上 OPENAI_API_KEY=/);
            assert.doesNotMatch(r.stderr, /复制/);
        });

        test('.env 在工作目录里被读取，真实环境变量优先', async () => {
            // base URL 写在 .env 里，所以假服务要先起来
            const fake = await startFakeOpenAI();
            const cwd = workdir({ '.env': `OPENAI_API_KEY=sk-from-dotenv\nOPENAI_MODEL=from-dotenv\nOPENAI_BASE_URL=${fake.url}\n` });
            // .env 选的模型地址要先信任文件夹（第一行 y），密钥写在同一个 .env 里也一样
            const r = await runStage(stage, { input: ['y', 'hi'], cwd, env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, OPENAI_MODEL: 'from-env' } })
                .finally(() => fake.close());
            assert.equal(r.code, 0, r.stderr);
            assert.equal(fake.requests[0].headers.authorization, 'Bearer sk-from-dotenv');
            assert.equal(fake.requests[0].body.model, 'from-env');
        });
    });
}
