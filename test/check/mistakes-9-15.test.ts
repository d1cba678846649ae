// 检查要真的查得出错：第 9–15 天每天至少两个学习者常犯的错，各自在一份副本里做一处小改动（本仓库的阶段，第 15 天用最小解答），
// 断言对应的那一项 ✘、给出它的提示，「实际」里看得到是哪里错了。改动的原文找不到时立刻失败：阶段改了，这里要跟着改。
// 同时最多跑四个；等得久的（不回答的请求要等到检查超时、等 10 秒超时才发现服务器退出）排在前面。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { limiter } from '../../scripts/check/limit.ts';
import { formatResult } from '../../scripts/check/format.ts';
import { checksOf, exitCode, runChecks } from '../../scripts/check/report.ts';
import { compiledCopy } from '../helpers/compiled.ts';
import { REPO_ROOT } from '../helpers/run-stage.ts';
import { CHECK_QUIET_MS } from '../helpers/wait.ts';
import { workdir } from '../helpers/workdir.ts';

interface Mistake {
    what: string;           // 学习者做错了什么
    day: number;
    from: string;           // 复制哪个文件夹
    file: string;
    find: string;           // 原文（必须恰好出现）
    replace: string;
    check: string;          // 应当 ✘ 的那一项（名字里的一段）
    because: RegExp;        // 「实际」里应当看到的
}

const SOLUTION = 'test/check/solution-day15';

// day11 的 index.ts 里换掉 registerSubAgentTool(cfg)：delegate_task 把主对话的整个历史连同任务发出去
const SUB_AGENT_WITH_HISTORY = `const { registerTool } = await import('./tools.ts');
const { streamChat } = await import('./llm.ts');
registerTool({
    name: 'delegate_task', description: '交给子 Agent', parameters: { type: 'object', properties: { task: { type: 'string' } }, required: ['task'] },
    async run(args, signal) {
        const stream = streamChat(cfg, [{ role: 'system', content: '你是子 Agent' }, ...chat.history, { role: 'user', content: args.task }], [], signal);
        for (;;) {
            const step = await stream.next();
            if (step.done) return step.value.text;
        }
    },
});`;

const MISTAKES: Mistake[] = [
    { what: '没有给每个请求开计时器', day: 15, from: SOLUTION, file: 'mcp.ts', find: '}, 10_000);', replace: '}, 0x7fffffff);', check: '10 秒没有回答', because: /Agent 一直没退出/ },
    { what: '服务器退出时不让挂着的请求失败', day: 15, from: SOLUTION, file: 'mcp.ts', find: "this.child.on('exit', () => this.markDead());", replace: '', check: 'markDead', because: /秒后才到（像是等到超时/ },
    { what: '响应按到达顺序交给最早的请求，不看 id', day: 15, from: SOLUTION, file: 'mcp.ts', find: 'const entry = this.pending.get(msg.id);', replace: 'const [id, entry] = [...this.pending][0] ?? []; msg.id = id;', check: '按 id 配对', because: /工具结果：WRONG-SPY/ },
    { what: '工具名没加 mcp_<服务名>_ 前缀', day: 15, from: SOLUTION, file: 'index.ts', find: 'const full = `mcp_${name}_${t.name}`;', replace: 'const full = t.name;', check: 'mcp_<服务名>_<工具名>', because: /请求里的工具：echo、clock/ },
    { what: '握手时忘了发 notifications/initialized', day: 15, from: SOLUTION, file: 'mcp.ts', find: "this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });", replace: '', check: '握手顺序', because: /服务器收到：initialize → tools\/list/ },
    { what: '退出时不停服务器', day: 15, from: SOLUTION, file: 'index.ts', find: 'await Promise.all(servers.map((s) => s.stop()));', replace: '', check: '服务器进程不留下', because: /Agent 退出后服务器还在运行/ },
    { what: 'delegate_task 不等子 Agent 的结论', day: 9, from: 'day11', file: 'subagent.ts', find: "run: (args, signal) => askSubAgent(cfg, stringArg(args, 'task'), signal),", replace: "run(args, signal) { void askSubAgent(cfg, stringArg(args, 'task'), signal); return '已交给子 Agent'; },", check: '子 Agent 的结论', because: /工具结果：已交给子 Agent/ },
    // 课里的子 Agent 拿不到主对话的历史；常见的错是干脆用主对话的 chat.history 去问
    { what: '子 Agent 的请求带上了主对话的历史', day: 9, from: 'day11', file: 'index.ts', find: 'registerSubAgentTool(cfg);', replace: SUB_AGENT_WITH_HISTORY, check: '子 Agent 的请求是一次新的对话', because: /暗号是 HIST/ },
    { what: '没把强制 todo_write 的策略接进对话循环', day: 9, from: 'day11', file: 'index.ts', find: 'chat.setForcedTool(forceTodo);', replace: '', check: '强制先调用 todo_write', because: /tool_choice：null/ },
    { what: '从代码的文件夹读 AGENTS.md，而不是工作目录', day: 10, from: 'day11', file: 'instructions.ts', find: "safePath('AGENTS.md')", replace: '`${import.meta.dirname}/AGENTS.md`', check: 'AGENTS.md', because: /user：你好/ },
    { what: '长期记忆只在内存里，没写盘', day: 10, from: 'day11', file: 'memory.ts', find: 'writeJsonAtomic(MEMORY_FILE, [...memories, content]);', replace: '', check: '长期记忆跨进程', because: /没有找到相关记忆/ },
    { what: '白名单只用来过滤请求里的工具，执行时不再查', day: 11, from: 'day11', file: 'tools.ts', find: 'if (visible && !visible.has(name)) return', replace: 'if (false) return', check: '执行时也被拒绝', because: /build\/ 被删了/ },
    { what: '/use 之后技能说明没进系统提示', day: 11, from: 'day11', file: 'instructions.ts', find: 'if (parts.skill) sections.push', replace: 'if (false) sections.push', check: '技能说明进了系统提示', because: /之后的 system 消息/ },
    { what: '启用技能后请求里还是全部工具', day: 11, from: 'day11', file: 'tools.ts', find: 'listTools().filter((t) => !visible || visible.has(t.name))', replace: 'listTools()', check: '只带白名单', because: /请求里的工具：.*run_shell/ },
    { what: 'search 没跳过 node_modules 和点目录', day: 12, from: 'day15', file: 'search.ts', find: "if (e.name.startsWith('.') || e.name === 'node_modules') continue;", replace: '', check: '跳过 node_modules', because: /node_modules\/lib\/index\.js:1/ },
    { what: 'fetch 把 HTML 原样交给模型', day: 12, from: 'day15', file: 'web.ts', find: "return /html/i.test(res.headers.get('content-type') ?? '') ? htmlToText(body) : body.trim();", replace: 'return body;', check: 'HTML 变成纯文字', because: /<p>正文/ },
    { what: 'fetch 不问就联网', day: 12, from: 'day15', file: 'web.ts', find: 'if (!(await confirm(`即将抓取', replace: 'if (false && !(await confirm(`即将抓取', check: 'fetch 先问你', because: /网页服务收到 1 个请求/ },
    { what: '忘了每轮开始前召回', day: 13, from: 'day15', file: 'index.ts', find: 'recall = recallMemory(getMemories(), text);', replace: "recall = '';", check: '每轮自动召回', because: /user：测试命令是什么/ },
    { what: '打分不乘 idf（只数命中）', day: 13, from: 'day15', file: 'bm25.ts', find: 'scores[i] += (idf * tf * (K1 + 1))', replace: 'scores[i] += (tf * (K1 + 1))', check: 'BM25 排序', because: /1\. .*alpha beta 第 1 条/ },
    { what: '整篇文档当一块，不切块', day: 14, from: 'day15', file: 'rag.ts', find: 'chunks: chunkText(text, CHUNK, OVERLAP)', replace: 'chunks: [text]', check: '只取回相关', because: /个字符，1 块/ },
    { what: '知识库只在内存里，没写盘', day: 14, from: 'day15', file: 'rag.ts', find: 'writeJsonAtomic(RAG_FILE, { docs: next });', replace: '', check: '重启后还能检索', because: /知识库还是空的/ },
    { what: 'rag_add 不问就收录', day: 14, from: 'day15', file: 'rag.ts', find: 'if (!(await confirm(`即将收录到知识库', replace: 'if (false && !(await confirm(`即将收录到知识库', check: 'rag_add 先问你', because: /rag_add：已收录/ },
];

// 复制一份再改：副本放在一个 type: module 的 package.json 下面（和仓库根目录一样），index.ts 的顶层 await 才能用
function brokenCopy(m: Mistake): string {
    const dir = path.join(workdir({ 'package.json': '{ "type": "module" }\n' }), 'learner');
    fs.cpSync(path.join(REPO_ROOT, m.from), dir, { recursive: true });
    const file = path.join(dir, m.file);
    const source = fs.readFileSync(file, 'utf8');
    assert.equal(source.split(m.find).length, 2, `${m.from}/${m.file} 里要恰好有一处「${m.find}」`);
    fs.writeFileSync(file, source.replace(m.find, () => m.replace));
    return path.join(dir, 'index.ts');
}

const limited = limiter(4);

describe('第 9–15 天的检查查得出常犯的错', { concurrency: true }, () => {
    // 副本先全部做好、转成 JS，再开始跑检查：转换是同步的，要是在别的检查跑着时做，这个进程里的假模型和打字的节拍
    // 就被卡住，忙的机器上一卡十几秒，正在跑的检查会误判
    const entries = new Map<Mistake, string>();
    before(() => {
        for (const m of MISTAKES) entries.set(m, compiledCopy(brokenCopy(m)));
    });
    for (const m of MISTAKES) {
        test(`第 ${m.day} 天：${m.what}`, async () => {
            const checks = (await checksOf(m.day)).filter((c) => c.name.includes(m.check));
            assert.equal(checks.length, 1, `第 ${m.day} 天名字含「${m.check}」的检查应当恰好一项`);
            const [check] = checks;
            const entry = entries.get(m)!;
            const [result] = await limited(() => runChecks({ entry, days: [m.day], filter: (c) => c === check, quietMs: CHECK_QUIET_MS }));
            const report = formatResult(result);
            assert.equal(result.ok, false, report);
            // 选做 ☆ 的项没通过照样显示，但检查的退出码仍是 0
            assert.ok(report.startsWith(`${check.optional ? '☆ ' : ''}✘ 第 ${m.day} 天 · ${check.name}\n`), report);
            assert.equal(exitCode([result]), check.optional ? 0 : 1);
            assert.ok(report.includes(`    提示：${check.hint}\n`), report);
            assert.match(result.miss!.actual, m.because, report);
        });
    }
});
