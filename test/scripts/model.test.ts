// npm run model（你来当模型）：读者在模型终端里回答一句话和一次 run_shell 调用，
// 工具结果回到模型终端，Agent 那边显示读者打的回复。两边都是真实进程：scripts/model.ts 和 day04 起每个阶段的入口。
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT, runStage, stagesFrom } from '../helpers/run-stage.js';
import { waitUntil } from '../helpers/wait.js';

/** 启动模型终端；waitFor 等它的输出里出现某段文字（不靠计时：只看输出）。 */
function startModel() {
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(REPO_ROOT, 'scripts', 'model.ts'), '--port', '0'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (output += chunk));
    const waitFor = (text: string) => waitUntil(`模型终端输出「${text}」`, () => output.includes(text), () => output);
    return { child, waitFor, output: () => output, type: (line: string) => child.stdin.write(`${line}\n`) };
}

describe('npm run model：你来当模型', () => {
    const models: ReturnType<typeof startModel>[] = [];
    after(() => models.forEach((m) => m.child.kill()));

    it('打印 OPENAI_BASE_URL，端口 0 时挑一个空闲端口', async () => {
        const model = startModel();
        models.push(model);
        await model.waitFor('/v1\n');
        assert.match(model.output(), /^OPENAI_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1$/m);
    });

    it('不要流的请求（历史压缩、子 Agent）得到一个完整的 JSON 回复', async () => {
        const model = startModel();
        models.push(model);
        await model.waitFor('/v1\n');
        const url = /OPENAI_BASE_URL=(\S+)/.exec(model.output())![1];
        const reply = fetch(`${url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: '把上面的对话总结一下' }] }) });
        await model.waitFor('[user] 把上面的对话总结一下');
        model.type('我们聊了天气');
        const body = (await (await reply).json()) as { choices: { message: { content: string }; finish_reason: string }[] };
        assert.equal(body.choices[0].message.content, '我们聊了天气');
        assert.equal(body.choices[0].finish_reason, 'stop');
    });

    for (const stage of stagesFrom('day04')) {
        it(`${stage}：回答一次 run_shell 调用和一句话，工具结果出现在模型终端`, async () => {
            const model = startModel();
            models.push(model);
            await model.waitFor('/v1\n');
            const url = /OPENAI_BASE_URL=(\S+)/.exec(model.output())![1];
            const agent = runStage(stage, { input: ['看看 echo 能不能用', 'y'], env: { OPENAI_BASE_URL: url } });
            await model.waitFor('[user] 看看');
            assert.match(model.output(), /\[user\] 看看 echo 能不能用/);
            assert.match(model.output(), /── 请求 #1：\d+ 条消息，\d+ 个工具（[^）]*run_shell/);
            model.type('/tool run_shell {"command":"echo hello-from-tool"}');
            await model.waitFor('[工具结果');
            assert.match(model.output(), /\[工具结果 call_1\]\n.*hello-from-tool/);
            model.type('echo 可以用，输出是 hello-from-tool');
            const result = await agent;
            assert.match(result.stdout, /echo 可以用，输出是 hello-from-tool/);
            assert.match(result.stdout, /bye/);
        });
    }
});
