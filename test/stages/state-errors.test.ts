// 改坏了的状态文件（存档、权限、信任记录、撤销记录、记忆、知识库、mcp.json）：经真实入口验证报错说出 文件:行:列、
// 用中文说原因并给出提示，不带 V8 的英文原话和调用栈；文件逐字节不变；Agent 照今天的样子继续运行或报错退出。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { text } from '../../scripts/fake-model/replies.ts';
import { runAgent, type AgentRun } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

interface BrokenFile {
    name: string;
    file: string;                   // 相对工作目录；inHome 时相对 HOME
    inHome?: boolean;
    content: string;
    where: string;                  // 行:列
    reason: string;                 // 括号里的中文原因
    input: string[];
    exitCode: number;               // 今天的退出码：读不了就不能运行的文件报错退出，其余照常运行
    label: string;                  // 出错的地方自己的说明，在 文件:行:列 之前
}

// 每个文件一种常见的写坏法，几种原因都走到（Node 20 对「Unexpected token」不给位置，记忆那一例靠自己找）
const CASES: BrokenFile[] = [
    {
        name: 'sessions.json（/load、/save、退出时的保存）', file: '.geekagent/sessions.json',
        content: '{\n  "current": "work",\n  "sessions": {\n    "work": [{ "role": "user", "content": "半截',
        where: '4:46', reason: '字符串缺右引号', input: ['/load', '/save', '你好'], exitCode: 0, label: '没有载入存档：',
    },
    {
        name: 'GeekAgent.json', file: '.geekagent/GeekAgent.json',
        content: '{\n  "root": "..",\n  "tools": { "read": "allow", }\n}\n',
        where: '3:31', reason: '最后一项后面多了逗号', input: ['你好'], exitCode: 1, label: '读取 .geekagent/GeekAgent.json 失败：',
    },
    {
        name: '主目录里的 trusted-folders.json', file: '.geekagent/trusted-folders.json', inHome: true,
        content: '{ 坏掉的 JSON', where: '1:3', reason: '这里应该是用双引号括起来的键名', input: ['y', '你好'], exitCode: 0,
        label: '这次的回答不会被记住\n',
    },
    {
        name: 'undo.json', file: '.geekagent/undo.json',
        content: '{\n  "path": "a.txt"\n  "content": null\n}\n',
        where: '3:3', reason: '两项之间少了逗号，或者括号没配对', input: ['/undo', '你好'], exitCode: 0, label: '撤销失败：读取撤销记录失败：',
    },
    {
        name: 'memory.json', file: '.geekagent/memory.json',
        content: '[\n  "部署用 k8s",\n  \'测试用 node\'\n]\n',
        where: '3:3', reason: '字符串要用双引号，不能用单引号', input: ['你好'], exitCode: 1, label: '读取长期记忆失败：',
    },
    {
        name: 'rag/index.json', file: '.geekagent/rag/index.json',
        content: '{"docs": [', where: '1:11', reason: '没写完就结束了，可能少了右括号 } 或 ]', input: ['/rag'], exitCode: 1,
        label: '读取知识库失败：',
    },
    {
        name: 'mcp.json', file: '.geekagent/mcp.json',
        content: '{ "mcpServers": {} }\n}\n', where: '2:1', reason: 'JSON 已经完整结束，后面还有多余的内容', input: ['你好'], exitCode: 0,
        label: '读取 MCP 配置失败：',
    },
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** 报错说出 文件:行:列 和中文原因，下一行是提示；没有 V8 的英文原话，没有调用栈。 */
function assertExplained(r: AgentRun, c: BrokenFile, shownPath: string): void {
    const out = r.stdout + r.stderr;
    const head = new RegExp(`${escape(c.label)}${escape(shownPath)}:${c.where}：JSON 写坏了（${escape(c.reason)}）\\n`
        + '提示：照这个位置改好 JSON；或者把文件移走（改个名），Agent 就当它不存在、从头开始。文件没有被改动');
    assert.match(r.stderr, head);
    assert.doesNotMatch(out, /Unexpected|Expected|position \d|JSON input|not valid JSON|SyntaxError|in JSON/, '不要 V8 的英文原话');
    assert.doesNotMatch(out, /^\s+at .*:\d+:\d+\)?$/m, '不要调用栈');
}

for (const c of CASES) {
    for (const stage of HARDENED_ONLY) {
        describe(`${stage}: 改坏了的 ${c.name}`, () => {
            test('说出 文件:行:列、中文原因和提示；文件逐字节不变；运行或退出和平常一样', async () => {
                // 信任记录只在有设置要信任时才读：让这个文件夹放行 run_shell
                const cwd = workdir(c.inHome ? { '.geekagent/GeekAgent.json': '{"root": "..", "tools": {"run_shell": "allow"}}' } : {});
                const home = workdir();
                const target = path.join(c.inHome ? home : cwd, c.file);
                fs.mkdirSync(path.dirname(target), { recursive: true });
                fs.writeFileSync(target, c.content);
                const r = await runAgent(stage, { cwd, input: c.input, replies: [text('你好！')], env: { HOME: home } });
                assert.equal(r.code, c.exitCode, r.stdout + r.stderr);
                assertExplained(r, c, c.inHome ? target : c.file);
                assert.ok(fs.readFileSync(target).equals(Buffer.from(c.content)), '文件必须原样保留');
                if (c.exitCode === 0) {
                    assert.match(r.stdout, /你好！/, '报错之后照常对话');
                    assert.match(r.stdout, /bye\n$/);
                } else {
                    assert.equal(r.requests.length, 0, '读不了就不该请求模型');
                }
            });
        });
    }
}

// 存档坏了时 /save 和退出时的保存也都说清位置（不只是 /load）
for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 改坏了的 sessions.json 与保存`, () => {
        test('/save 和退出各报一次 文件:行:列，不覆盖；这次的对话另存', async () => {
            const content = '{"current": "work", "sessions": {"work": [],}}';
            const cwd = workdir({ '.geekagent/sessions.json': content });
            const r = await runAgent(stage, { cwd, input: ['你好', '/save'], replies: [text('你好！')] });
            assert.equal(r.code, 0, r.stderr);
            const named = r.stderr.match(/sessions\.json 无法读取，没有覆盖它：\.geekagent\/sessions\.json:1:45：JSON 写坏了（最后一项后面多了逗号）\n提示：/g);
            assert.equal(named?.length, 2, r.stderr);
            assert.match(r.stderr, /这次的对话另存到 /);
            assert.doesNotMatch(r.stderr, /Expected|position \d/);
            assert.equal(fs.readFileSync(path.join(cwd, '.geekagent/sessions.json'), 'utf8'), content);
        });
    });
}
