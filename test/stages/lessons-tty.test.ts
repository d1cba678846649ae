// 课的第 3 天：真实终端里（tmux，行模式）提前打的 y 不会批准之后才出现的命令。冻住 Agent（SIGSTOP）时打 y 加回车、放行要执行
// 命令的回复，再让它醒来：两样同时摆在它面前。课里的 readAnswer() 把这个 y 当作提前打的，排队并说一声「已排队」；
// 之后只按回车就是「否」，命令不执行，排队的 y 作为新的一轮发出。只看命令有没有执行、模型收到了什么和「已排队」三个字，
// 不看课里别的措辞；从 day04 起每一课和加固版都测（加固版的细节另见 tty-answer.test.ts）。没有 tmux 时跳过。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { toolMessages, userTexts } from '../helpers/agent.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { stagesFrom } from '../helpers/run-stage.ts';
import { noTmux, Terminal } from '../helpers/terminal.ts';

const COMMAND = 'echo ran > ran.txt';

// 让出两轮事件循环：假服务器放行之后，回复的其余部分这时已经写进了套接字
const flushed = async () => {
    for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('终端里提前打的 y 只排队，不批准命令', { skip: noTmux }, () => {
    for (const stage of stagesFrom('day04')) {
        test(`${stage} 行模式：Agent 冻住时打的 y 和要执行命令的回复同时到，y 排队，之后空回车就是拒绝`, async () => {
            let release = () => {};
            const hold = new Promise<void>((resolve) => (release = resolve));
            const fake = await startFakeOpenAI({
                replies: [
                    { kind: 'tools', text: '先说一句，', hold, calls: [call('c1', 'run_shell', { command: COMMAND })] },
                    text('命令已取消'),
                    text('收到排队的 y'),
                ],
            });
            const term = new Terminal(stage, { cols: 140, rows: 40, lineMode: true, env: { OPENAI_BASE_URL: fake.url } });
            try {
                await term.shows('GeekAgent');
                term.enter('开始');
                await term.shows('先说一句，');
                const thaw = await term.freeze();
                term.enter('y');   // 冻着的 Agent 读不到：按键在终端的输入缓冲里等着
                release();         // 要执行命令的回复也在套接字里等着
                await flushed();
                thaw();
                await term.shows('已排队');
                assert.ok(!fs.existsSync(path.join(term.cwd, 'ran.txt')), '提前打的 y 批准了命令');
                await term.answer('');   // [y/N] 出现之后只按回车：默认的「否」
                await term.shows('收到排队的 y');
                assert.ok(!fs.existsSync(path.join(term.cwd, 'ran.txt')), '命令不该执行');
                assert.match(toolMessages(fake.requests[1].body)[0].content, /取消|拒绝/);
                assert.deepEqual(userTexts(fake.requests[2].body).slice(-2), ['开始', 'y'], '排队的 y 应当作为新的一轮发出');
                term.press('C-d');
                await term.exited();
                assertNoRejections(fake);
            } finally {
                term.close();
                await fake.close();
            }
        });
    }
});
