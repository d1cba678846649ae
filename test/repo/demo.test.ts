// npm run demo -- dayNN：每个阶段的演示都能在没有密钥、不联网的情况下跑完（退出码 0），
// 并且该阶段 README 里两个标记之间的记录就是这次运行的输出（随机 id、骰子点数、临时路径、时间已规范化）。
// 记录过期时用 npm run demo -- dayNN --readme 重新生成。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { beginMarker, END_MARKER, HEADER, normalizeTranscript, replaceBetweenMarkers, runDemo } from '../../scripts/demo.ts';
import { HARDENED, LESSONS, ROOT } from '../../scripts/stages.ts';

describe('npm run demo', () => {
    for (const stage of LESSONS) {
        test(`${stage}：演示跑通，README 里是同一份记录`, async () => {
            const { text, code, base, cwd } = await runDemo(stage);
            try {
                assert.equal(code, 0, text);
                assert.match(text, /模型：演示脚本/, '横幅里要标明是演示脚本');
                // 正常退出；打开了协议追踪的演示，bye 之后附着 trace.log 的摘录
                assert.match(text, /bye\n(\n--- \.geekagent\/trace\.log 的摘录[^]*)?$/);
                assert.doesNotMatch(text, /请求失败|缺少 OPENAI_API_KEY/);
                const transcript = normalizeTranscript(`${HEADER}\n${text}`, cwd);
                const readme = fs.readFileSync(path.join(ROOT, stage, 'README.md'), 'utf8');
                assert.ok(readme.includes(beginMarker(stage)) && readme.includes(END_MARKER),
                    `${stage}/README.md 里还没有演示标记：请放入「${beginMarker(stage)}」和「${END_MARKER}」两行，再运行 npm run demo -- ${stage} --readme`);
                assert.equal(readme, replaceBetweenMarkers(readme, stage, transcript),
                    `${stage}/README.md 里的演示记录过期了：运行 npm run demo -- ${stage} --readme 重新生成`);
            } finally {
                fs.rmSync(base, { recursive: true, force: true });
            }
        });
    }

    test(`${HARDENED}：缺少密钥时横幅提示的 npm run demo -- ${HARDENED} 跑得通（用 day15 那一章的脚本）`, async () => {
        const { text, code, base } = await runDemo(HARDENED);
        fs.rmSync(base, { recursive: true, force: true });
        assert.equal(code, 0, text);
        assert.match(text, /^GeekAgent — 加固版（hardened）\n模型：演示脚本/);
        assert.match(text, /bye\n/);
        assert.doesNotMatch(text, /请求失败|缺少 OPENAI_API_KEY/);
    });

    test('day15 的演示就是原教程第 15 天「先看效果」的那一段', async () => {
        const { text, base } = await runDemo('day15');
        fs.rmSync(base, { recursive: true, force: true });
        assert.match(text, /You › \/mcp\ndemo（2 个工具）\n {2}mcp_demo_word_count\n {2}mcp_demo_dice\n/);
        assert.equal(text.match(/即将调用 MCP 工具 mcp_demo_/g)?.length, 2);
        assert.match(text, /\[调用工具 mcp_demo_word_count → 字符数 22，词数 3\]/);
        const dice = /\[调用工具 mcp_demo_dice → 点数：([1-6])\]/.exec(text);
        assert.ok(dice, text);
        assert.match(text, new RegExp(`骰子点数是 ${dice[1]}。「Model Context Protocol」共有 22 个字符、3 个词。`));
    });

    test('规范化：临时路径、骰子点数、对话 id 与时间', () => {
        const raw = '/tmp/x/project/a.txt 点数：4 骰子点数是 4 对话 id：2563d61d 2026-12-01 14:46:32 用时 1.5 秒';
        assert.equal(normalizeTranscript(raw, '/tmp/x/project'), '<临时目录>/a.txt 点数：N 骰子点数是 N 对话 id：<id> <时间> 用时 N 秒');
    });
});
