// Day 9–10 的行为：TODO 规划（强制 tool_choice、todo_write 校验、/todos）、子 Agent（delegate_task）、
// AGENTS.md 进系统提示但不进存档。经真实入口、管道输入、假 OpenAI 服务验证；只在加固版上跑。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { runAgent, toolMessages } from '../helpers/agent.ts';
import { HARDENED_ONLY, startStage } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

const FORCE_TODO = { type: 'function', function: { name: 'todo_write' } };

const systemMessages = (body: any): any[] => body.messages.filter((m: any) => m.role === 'system');
const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.function.name).sort();
const todoCall = (id: string, todos: unknown) => call(id, 'todo_write', { todos });

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: TODO 规划、子 Agent、AGENTS.md`, () => {
        test('计划请求：第一个请求强制 todo_write，之后 auto；清单替换后 /todos 用 [ ] [>] [x] 显示', async () => {
            const r = await runAgent(stage, { input: ['先读 a.txt，然后总结一下', '/todos', '你好'], replies: [
                tools(todoCall('call_plan', [
                    { content: '读 a.txt', status: 'completed' },
                    { content: '  总结  ', status: 'in_progress' },
                    { content: '汇报', status: 'pending' },
                ])),
                text('计划好了。'),
                text('你好！'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 3);
            const [first, second, third] = r.requests.map((q) => q.body);
            assert.deepEqual(first.tool_choice, FORCE_TODO);
            assert.equal(second.tool_choice, 'auto', '强制只在一轮的第一个请求');
            assert.equal(third.tool_choice, 'auto', '没有计划词的新一轮不强制');
            const todoTool = first.tools.find((t: any) => t.function.name === 'todo_write');
            assert.deepEqual(todoTool.function.parameters.required, ['todos']);
            assert.deepEqual(todoTool.function.parameters.properties.todos.items.properties.status.enum, ['pending', 'in_progress', 'completed']);
            assert.deepEqual(toolMessages(second), [{ role: 'tool', tool_call_id: 'call_plan', content: '已更新 3 项 TODO' }]);
            assert.match(r.stdout, /\[调用工具 todo_write → 已更新 3 项 TODO\]/);
            assert.ok(r.stdout.includes('TODO：\n[x] 读 a.txt\n[>] 总结\n[ ] 汇报\n'), r.stdout);
        });

        test('计划词：todo / 任务列表 / 然后 / 最后 / 「…后再总结」强制，普通问题不强制', async () => {
            const inputs = ['列一个 TODO', '帮我看看 README', '给我一个任务列表', '先 A 再 B，最后 C', '读完代码后再总结', '解释一下闭包'];
            const r = await runAgent(stage, { input: inputs, replies: inputs.map((_, i) => text(`回答 ${i}`)) });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, inputs.length);
            const forced = r.requests.map((q) => JSON.stringify(q.body.tool_choice) === JSON.stringify(FORCE_TODO));
            assert.deepEqual(forced, [true, false, true, true, true, false]);
        });

        test('没有清单时 /todos 提示还没有；非法清单被拒绝（两项进行中、坏状态、空内容），旧清单保留', async () => {
            const r = await runAgent(stage, { input: ['/todos', '做三件事，然后汇报', '/todos'], replies: [
                tools(todoCall('call_ok', [{ content: '第一步', status: 'in_progress' }, { content: '第二步', status: 'pending' }])),
                tools(todoCall('call_two', [{ content: 'A', status: 'in_progress' }, { content: 'B', status: 'in_progress' }])),
                tools(
                    todoCall('call_status', [{ content: 'A', status: 'done' }]),
                    todoCall('call_empty', [{ content: '   ', status: 'pending' }]),
                    call('call_shape', 'todo_write', { todos: '不是数组' }),
                ),
                text('清单没变。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 4);
            const results = Object.fromEntries(toolMessages(r.requests[3].body).map((m: any) => [m.tool_call_id, m.content]));
            assert.deepEqual(results, {
                call_ok: '已更新 2 项 TODO',
                call_two: '同一时间只能有一项 TODO 处于进行中',
                call_status: 'TODO 格式无效',
                call_empty: 'TODO 格式无效',
                call_shape: 'TODO 格式无效',
            });
            assert.match(r.stdout, /（还没有 TODO）/);
            assert.ok(r.stdout.includes('TODO：\n[>] 第一步\n[ ] 第二步\n'), r.stdout);
        });

        test('delegate_task：单独的非流式请求，只有子 Agent 系统提示和任务；结果作为 tool 消息；下一个请求强制 todo_write', async () => {
            const task = '比较方案 A 和方案 B 的优缺点，给出结论';
            const r = await runAgent(stage, { cwd: workdir({ 'AGENTS.md': '项目规则：禁止使用分号' }), input: ['帮我评估一下这两个方案'], replies: [
                tools(call('call_sub', 'delegate_task', { task })),
                { kind: 'text', text: '  方案 A 更简单，推荐 A。\n', usage: { prompt_tokens: 30, completion_tokens: 10, total_tokens: 40 } },
                tools(todoCall('call_adopt', [{ content: '采纳子 Agent 的结论', status: 'completed' }])),
                text('结论：用方案 A。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 4);
            const [main, sub, afterSub, last] = r.requests.map((q) => q.body);
            assert.equal(main.tool_choice, 'auto');
            assert.ok(toolNames(main).includes('delegate_task'));
            // 子 Agent：非流式、没有工具、没有历史、没有主 Agent 的系统提示（也就没有 AGENTS.md）
            assert.equal(sub.stream, undefined);
            assert.equal(sub.stream_options, undefined);
            assert.equal(sub.tools, undefined);
            assert.equal(sub.tool_choice, undefined);
            assert.equal(sub.model, 'test-model');
            assert.equal(sub.messages.length, 2);
            assert.equal(sub.messages[0].role, 'system');
            assert.match(sub.messages[0].content, /子 Agent/);
            assert.doesNotMatch(sub.messages[0].content, /禁止使用分号/);
            assert.deepEqual(sub.messages[1], { role: 'user', content: task });
            // 结果（去掉首尾空白）回到主 Agent；委派之后的那个请求强制 todo_write，再之后恢复 auto
            assert.deepEqual(toolMessages(afterSub), [{ role: 'tool', tool_call_id: 'call_sub', content: '方案 A 更简单，推荐 A。' }]);
            assert.equal(afterSub.stream, true);
            assert.deepEqual(afterSub.tool_choice, FORCE_TODO);
            assert.equal(last.tool_choice, 'auto');
            assert.match(r.stdout, /\[调用工具 delegate_task → 方案 A 更简单，推荐 A。\]/);
            assert.match(r.stdout, /结论：用方案 A。/);
        });

        test('delegate_task：空任务不发请求；子 Agent 空回复、请求出错都变成结果文本，回合继续', async () => {
            const r = await runAgent(stage, { input: ['分析一下'], replies: [
                tools(call('call_empty', 'delegate_task', { task: '  ' })),
                tools(call('call_blank', 'delegate_task', { task: '说点什么' })),
                text('   '),
                tools(call('call_fail', 'delegate_task', { task: '再试一次' })),
                { kind: 'http', status: 400, body: '{"error":{"message":"sub agent exploded","type":"invalid_request_error"}}' },
                text('我自己来吧。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            // 主请求 4 个 + 子 Agent 请求 2 个（空任务那次没有发）
            assert.equal(r.requests.length, 6);
            assert.equal(r.requests.filter((q) => q.body.stream !== true).length, 2);
            const results = Object.fromEntries(toolMessages(r.requests[5].body).map((m: any) => [m.tool_call_id, m.content]));
            assert.equal(results.call_empty, '缺少参数：task');
            assert.equal(results.call_blank, '子 Agent 没有返回结果');
            assert.match(results.call_fail, /^工具执行失败：HTTP 400：sub agent exploded/);
            assert.match(r.stdout, /我自己来吧。/);
        });

        test('子 Agent 请求进行中收到 SIGTERM：请求被取消，本轮回滚，正常保存退出', async () => {
            const fake = await startFakeOpenAI({ replies: [tools(call('call_sub', 'delegate_task', { task: '想很久很久' })), { kind: 'hang' }] });
            const cwd = workdir();
            try {
                const run = startStage(stage, { input: ['请分析', '这一行永远轮不到'], cwd, env: { OPENAI_BASE_URL: fake.url } });
                // 子 Agent 的请求到了假服务（它永远不回答）：这时请求一定还在进行中
                await fake.waitForRequest(2);
                run.child.kill('SIGTERM');
                const r = await run.done;
                assert.equal(r.code, 0, r.stderr);
                assert.match(r.stdout, /bye/);
                assert.equal(fake.requests.length, 2, '取消后不该再发请求');
            } finally {
                await fake.close();
            }
            // 回滚之后历史是空的：default 没有内容，也就不会被改名保存
            const saved = JSON.parse(fs.readFileSync(path.join(cwd, '.geekagent', 'sessions.json'), 'utf8'));
            assert.deepEqual(saved.sessions, { default: [] });
        });

        test('AGENTS.md：每个请求的第一条 system 消息都带着它；存档里没有 system 消息', async () => {
            const rule = 'PROJECT-RULE-7f3a：提交信息必须用中文';
            const cwd = workdir({ 'AGENTS.md': `# 项目说明\n\n${rule}\n` });
            const r = await runAgent(stage, { cwd, input: ['现在几点', '/save', '谢谢'], replies: [
                tools(call('call_time', 'get_current_time')),
                text('下午三点。'),
                text('不客气。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 3);
            for (const { body } of r.requests) {
                const system = systemMessages(body);
                assert.equal(system.length, 1, '每个请求恰好一条系统提示');
                assert.equal(body.messages[0], system[0], '系统提示在最前面');
                assert.match(system[0].content, /todo_write/);
                assert.match(system[0].content, /memory_search/);
                assert.ok(system[0].content.includes(`项目说明（AGENTS.md）：\n# 项目说明\n\n${rule}`), system[0].content);
                assert.doesNotMatch(system[0].content, /技能说明/, '没有启用技能时没有技能一节');
            }
            // 系统提示每次重建，从不进历史：第三个请求里的对话部分只有真正的消息
            assert.deepEqual(r.requests[2].body.messages.slice(1).map((m: any) => m.role), ['user', 'assistant', 'tool', 'assistant', 'user']);
            assert.match(r.stdout, /已保存 1 个对话/);
            // 退出时的自动保存也一样：sessions.json 里没有 system 消息，也没有 AGENTS.md 的文字
            const saved = fs.readFileSync(path.join(cwd, '.geekagent', 'sessions.json'), 'utf8');
            const archive = JSON.parse(saved);
            const messages = Object.values(archive.sessions).flat() as any[];
            assert.ok(messages.length >= 6, saved);
            assert.ok(messages.every((m) => m.role !== 'system'), saved);
            assert.ok(!saved.includes(rule));
        });

        test('AGENTS.md 从权限根目录读取；没有时系统提示写「无」', async () => {
            // 根目录指向子目录 proj：只读 proj/AGENTS.md，不读工作目录里的
            const cwd = workdir({
                'AGENTS.md': '工作目录里的说明（不该出现）',
                'proj/AGENTS.md': '根目录里的说明 ROOT-ONLY',
                '.geekagent/GeekAgent.json': JSON.stringify({ root: '../proj', tools: {} }),
            });
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('你好')] });
            assert.equal(r.code, 0, r.stderr);
            const system = r.requests[0].body.messages[0].content;
            assert.match(system, /项目说明（AGENTS\.md）：\n根目录里的说明 ROOT-ONLY/);
            assert.doesNotMatch(system, /不该出现/);

            const none = await runAgent(stage, { input: ['你好'], replies: [text('你好')] });
            assert.equal(none.code, 0, none.stderr);
            assert.match(none.requests[0].body.messages[0].content, /项目说明（AGENTS\.md）：\n无/);
        });
    });
}
