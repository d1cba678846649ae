// Day 2–4 的工具循环：经真实入口、管道输入、假 OpenAI 服务验证。只在加固版上跑（课由检查和 lessons.test.ts 测）。
// 后面的阶段会加权限表和目录隔离（write / patch / run_shell 仍要确认，其余默认放行，路径限制在工作目录内），
// 所以这里只用工作目录里的相对路径，也不比对完整的 stdout。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools, type FakeReply } from '../../scripts/fake-model/replies.ts';
import { runAgent, toolMessages, userTexts } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

// 发给模型的对话（Day 11 起请求最前面多一条每次重建的 system 消息，这里去掉）
const convo = (body: any): any[] => body.messages.filter((m: any) => m.role !== 'system');
const lastCalls = (body: any): any[] => body.messages.filter((m: any) => m.tool_calls).at(-1).tool_calls;

const BUILTIN_TOOLS = ['get_current_time', 'run_shell', 'ls', 'read', 'glob', 'write', 'patch'];
const REQUIRED: Record<string, string[]> = {
    run_shell: ['command'], ls: [], read: ['path'], glob: ['pattern'], write: ['path', 'content'], patch: ['path', 'hunks'],
};

/** 手写的 SSE 回复：测试假服务不直接提供的形状（调用没有 id、几个调用的参数交错到达）。 */
function rawSse(deltas: object[], finish = 'tool_calls'): FakeReply {
    const frame = (delta: object, finishReason: string | null = null) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-raw', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
    const body = [frame({ role: 'assistant', content: null }), ...deltas.map((d) => frame(d)), frame({}, finish), 'data: [DONE]\n\n'];
    return { kind: 'sse', body: body.join('') };
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 工具循环与内置工具`, () => {
        test('单个调用：执行后带着结果再请求一次，最终回答存进历史', async () => {
            const r = await runAgent(stage, { input: ['现在几点？', '谢谢'], replies: [
                tools(call('call_time', 'get_current_time')),
                text('现在是下午。'),
                text('不客气。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 3);
            const [user, assistant, tool] = convo(r.requests[1].body);
            assert.deepEqual(user, { role: 'user', content: '现在几点？' });
            assert.deepEqual(assistant, {
                role: 'assistant',
                content: null,
                tool_calls: [{ id: 'call_time', type: 'function', function: { name: 'get_current_time', arguments: '{}' } }],
            });
            assert.equal(tool.role, 'tool');
            assert.equal(tool.tool_call_id, 'call_time');
            assert.match(tool.content, /^\d{4}\/\d{1,2}\/\d{1,2} \d{1,2}:\d{2}:\d{2}$/);
            assert.deepEqual(convo(r.requests[2].body).slice(3), [
                { role: 'assistant', content: '现在是下午。' },
                { role: 'user', content: '谢谢' },
            ]);
            assert.match(r.stdout, /\[调用工具 get_current_time → \d{4}\//);
            assert.match(r.stdout, /现在是下午。/);
        });

        test('每个请求都带着 7 个内置工具，schema 是 object、不允许多余属性', async () => {
            const r = await runAgent(stage, { input: ['几点了'], replies: [
                tools(call('call_t', 'get_current_time')),
                text('好的'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 2);
            for (const req of r.requests) {
                const offered = new Map<string, any>(req.body.tools.map((t: any) => [t.function.name, t]));
                for (const name of BUILTIN_TOOLS) {
                    const tool = offered.get(name);
                    assert.ok(tool, `请求里缺少工具 ${name}`);
                    assert.equal(tool.type, 'function');
                    assert.equal(typeof tool.function.description, 'string');
                    assert.ok(tool.function.description.length > 0);
                    assert.equal(tool.function.strict, undefined);
                    const params = tool.function.parameters;
                    assert.equal(params.type, 'object');
                    assert.equal(params.additionalProperties, false);
                    assert.equal(typeof params.properties, 'object');
                    if (name in REQUIRED) assert.deepEqual(params.required, REQUIRED[name]);
                }
                assert.deepEqual(offered.get('get_current_time').function.parameters.properties, {});
                const hunk = offered.get('patch').function.parameters.properties.hunks.items;
                assert.deepEqual(hunk.required, ['old', 'new']);
                assert.equal(hunk.additionalProperties, false);
            }
        });

        test('并行调用 ls + read + glob：按顺序执行，三条 tool 消息按 id 一一对应', async () => {
            const cwd = workdir({ 'notes.txt': 'hello notes', 'sub/b.txt': 'b', 'sub/a/keep': '' });
            // 三个调用先各发一个头，参数再交错到达：只能靠 index 把碎片归位
            const r = await runAgent(stage, { cwd, input: ['看看目录'], replies: [
                rawSse([
                    { tool_calls: [{ index: 0, id: 'call_ls', type: 'function', function: { name: 'ls', arguments: '' } }] },
                    { tool_calls: [{ index: 1, id: 'call_read', type: 'function', function: { name: 'read', arguments: '' } }] },
                    { tool_calls: [{ index: 2, id: 'call_glob', type: 'function', function: { name: 'glob', arguments: '' } }] },
                    { tool_calls: [{ index: 2, function: { arguments: '{"pattern":' } }] },
                    { tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] },
                    { tool_calls: [{ index: 1, function: { arguments: '{"path":"notes' } }] },
                    { tool_calls: [{ index: 0, function: { arguments: '"sub"}' } }] },
                    { tool_calls: [{ index: 2, function: { arguments: '"**/*.txt"}' } }] },
                    { tool_calls: [{ index: 1, function: { arguments: '.txt"}' } }] },
                ]),
                text('看完了。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            const body = r.requests[1].body;
            assert.deepEqual(lastCalls(body).map((c: any) => [c.id, c.function.name, c.function.arguments]), [
                ['call_ls', 'ls', '{"path":"sub"}'],
                ['call_read', 'read', '{"path":"notes.txt"}'],
                ['call_glob', 'glob', '{"pattern":"**/*.txt"}'],
            ]);
            const [ls, read, glob] = toolMessages(body);
            assert.deepEqual([ls, read, glob].map((m) => m.tool_call_id), ['call_ls', 'call_read', 'call_glob']);
            assert.match(ls.content, /2/);
            assert.match(ls.content, /\na\/\nb\.txt$/, '目录在前并以 / 结尾');
            assert.match(read.content, /^（文件共 11 个字符，本次读取 0-11）\nhello notes$/);
            assert.match(glob.content, /\nnotes\.txt\nsub\/b\.txt$/);
            // 进度行按执行顺序出现
            const at = ['ls', 'read', 'glob'].map((name) => r.stdout.indexOf(`[调用工具 ${name} → `));
            assert.ok(at[0] >= 0 && at[0] < at[1] && at[1] < at[2], r.stdout);
            assert.ok(r.stdout.indexOf('看完了。') > at[2]);
        });

        test('参数拆成很多段、整个调用放在一个 chunk 里：都拼回原样', async () => {
            const cwd = workdir({ 'notes.txt': 'hello notes' });
            const args = '{"path": "notes.txt", "offset": 6}';
            const r = await runAgent(stage, { cwd, input: ['读一下'], replies: [
                { kind: 'tools', calls: [{ id: 'call_many', name: 'read', arguments: args, pieces: args.length }] },
                { kind: 'tools', calls: [{ id: 'call_whole', name: 'glob', arguments: '{"pattern":"*.txt"}', whole: true }] },
                text('好'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 3);
            const body = r.requests[2].body;
            const calls = body.messages.filter((m: any) => m.tool_calls).map((m: any) => m.tool_calls[0]);
            assert.deepEqual(calls.map((c: any) => c.function.arguments), [args, '{"pattern":"*.txt"}']);
            const [read, glob] = toolMessages(body);
            assert.equal(read.tool_call_id, 'call_many');
            assert.match(read.content, /本次读取 6-11）\nnotes$/);
            assert.equal(glob.tool_call_id, 'call_whole');
            assert.match(glob.content, /\nnotes\.txt$/);
        });

        test('空参数字符串在历史里存成 "{}"', async () => {
            const r = await runAgent(stage, { input: ['几点'], replies: [
                tools(call('call_empty', 'get_current_time', '')),
                text('好'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            const body = r.requests[1].body;
            assert.equal(lastCalls(body)[0].function.arguments, '{}');
            assert.match(toolMessages(body)[0].content, /^\d{4}\//);
        });

        test('流里没有 id 的调用：补上 call_ + 8 个字母数字，tool 消息和它配对', async () => {
            const r = await runAgent(stage, { input: ['几点'], replies: [
                rawSse([
                    { tool_calls: [{ index: 0, type: 'function', function: { name: 'get_current_time', arguments: '{}' } }] },
                    { tool_calls: [{ index: 1, type: 'function', function: { name: 'get_current_time', arguments: '' } }] },
                ]),
                text('好'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            const body = r.requests[1].body;
            const ids = lastCalls(body).map((c: any) => c.id);
            assert.equal(ids.length, 2);
            for (const id of ids) assert.match(id, /^call_[A-Za-z0-9]{8}$/);
            assert.notEqual(ids[0], ids[1]);
            assert.deepEqual(toolMessages(body).map((m) => m.tool_call_id), ids);
        });

        test('未知工具、坏的参数 JSON、不是对象的参数：都变成结果文本，回合继续', async () => {
            const r = await runAgent(stage, { cwd: workdir({ 'notes.txt': 'x' }), input: ['试试'], replies: [
                tools(
                    call('call_unknown', 'fly_to_moon'),
                    call('call_bad', 'read', '{"path": "notes'),
                    call('call_array', 'read', '["notes.txt"]'),
                ),
                text('出错了，我换个办法。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            const [unknown, bad, array] = toolMessages(r.requests[1].body);
            assert.equal(unknown.tool_call_id, 'call_unknown');
            assert.equal(unknown.content, '未知工具：fly_to_moon');
            assert.equal(bad.tool_call_id, 'call_bad');
            assert.match(bad.content, /^参数不是有效的 JSON：/);
            assert.match(array.content, /^参数不是有效的 JSON：/);
            assert.match(r.stdout, /出错了，我换个办法。/);
        });

        test('run_shell：下一行输入 yes（不分大小写）同意后执行，确认行不当作对话', async () => {
            const cwd = workdir();
            const r = await runAgent(stage, { cwd, input: ['跑个命令', 'Yes', '然后呢'], replies: [
                tools(call('call_sh', 'run_shell', { command: 'touch made-by-shell && echo hello-$((40+2))' })),
                text('跑完了'),
                text('没有了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(fs.existsSync(path.join(cwd, 'made-by-shell')));
            const tool = toolMessages(r.requests[1].body)[0];
            assert.equal(tool.tool_call_id, 'call_sh');
            assert.equal(tool.content, 'hello-42');
            assert.match(r.stdout, /touch made-by-shell/, '提示里要显示命令');
            assert.match(r.stdout, /\[y\/N\] /);
            assert.deepEqual(userTexts(r.requests[2].body), ['跑个命令', '然后呢']);
        });

        test('run_shell：回答 n 或输入结束都算拒绝，命令不执行', async () => {
            for (const input of [['跑个命令', 'n'], ['跑个命令']]) {
                const cwd = workdir();
                const r = await runAgent(stage, { cwd, input, replies: [
                    tools(call('call_sh', 'run_shell', { command: 'touch made-by-shell' })),
                    text('好吧'),
                ] });
                assert.equal(r.code, 0, r.stderr);
                assert.ok(!fs.existsSync(path.join(cwd, 'made-by-shell')), '拒绝后命令不该执行');
                assert.match(toolMessages(r.requests[1].body)[0].content, /取消|拒绝/);
                assert.match(r.stdout, /好吧/);
            }
        });

        test('write：先显示 diff 再问，同意后建目录写入；拒绝则不写', async () => {
            const cwd = workdir();
            const write = call('call_w', 'write', { path: 'out/new.txt', content: 'line1\nline2\n' });
            const r = await runAgent(stage, { cwd, input: ['写文件', 'y'], replies: [tools(write), text('写好了')] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(fs.readFileSync(path.join(cwd, 'out/new.txt'), 'utf8'), 'line1\nline2\n');
            assert.match(toolMessages(r.requests[1].body)[0].content, /^已写入 out\/new\.txt$/);
            const ask = r.stdout.indexOf('[y/N]');
            assert.ok(ask > 0);
            assert.ok(r.stdout.indexOf('+line1\n+line2\n') >= 0 && r.stdout.indexOf('+line1\n+line2\n') < ask, r.stdout);

            const declined = workdir();
            const no = await runAgent(stage, { cwd: declined, input: ['写文件', 'no'], replies: [tools(write), text('好吧')] });
            assert.equal(no.code, 0, no.stderr);
            assert.ok(!fs.existsSync(path.join(declined, 'out')));
            assert.match(toolMessages(no.requests[1].body)[0].content, /取消|拒绝/);
        });

        test('write：内容没变就不问，说没有写入', async () => {
            const cwd = workdir({ 'same.txt': 'same\n' });
            const r = await runAgent(stage, { cwd, input: ['写文件'], replies: [
                tools(call('call_w', 'write', { path: 'same.txt', content: 'same\n' })),
                text('好'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.doesNotMatch(r.stdout, /\[y\/N\]/);
            assert.match(toolMessages(r.requests[1].body)[0].content, /^same\.txt 的内容本来就是这样，没有写入$/);
        });

        test('patch：diff 带上下文行，同意后按顺序替换；片段找不到时不问也不改', async () => {
            const original = 'const a = 1;\nconst b = 2;\nconst c = 3;\n';
            const cwd = workdir({ 'code.ts': original });
            const hunks = [{ old: 'const b = 2;', new: 'const b = 20;' }, { old: 'c = 3', new: 'c = $&' }];
            const r = await runAgent(stage, { cwd, input: ['改一下', 'y'], replies: [
                tools(call('call_p', 'patch', { path: 'code.ts', hunks })),
                text('改好了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(fs.readFileSync(path.join(cwd, 'code.ts'), 'utf8'), 'const a = 1;\nconst b = 20;\nconst c = $&;\n');
            assert.equal(toolMessages(r.requests[1].body)[0].content, '已对 code.ts 应用 2 处修改');
            const shown = ' const a = 1;\n-const b = 2;\n-const c = 3;\n+const b = 20;\n+const c = $&;\n';
            assert.ok(r.stdout.includes(shown), r.stdout);
            assert.ok(r.stdout.indexOf(shown) < r.stdout.indexOf('[y/N]'));

            const missing = await runAgent(stage, { cwd, input: ['再改'], replies: [
                tools(call('call_p2', 'patch', { path: 'code.ts', hunks: [{ old: 'nope', new: 'x' }] })),
                text('没找到'),
            ] });
            assert.equal(missing.code, 0, missing.stderr);
            assert.doesNotMatch(missing.stdout, /\[y\/N\]/);
            assert.match(toolMessages(missing.requests[1].body)[0].content, /没有找到片段：nope/);
            assert.equal(fs.readFileSync(path.join(cwd, 'code.ts'), 'utf8'), 'const a = 1;\nconst b = 20;\nconst c = $&;\n');
        });

        test('工具轮数上限：显示提示并存成 assistant 消息，下一轮请求依然合法', async () => {
            const cap = 30;   // Day 9 起的上限（有了 TODO 规划）
            // 第一轮里模型一直要调用工具；第二轮正常回答
            let n = 0;
            const r = await runAgent(stage, {
                input: ['一直调用', '继续'],
                replies: (req) => (userTexts(req.body).includes('继续') ? text('好的，停下了。') : tools(call(`call_t${++n}`, 'get_current_time'))),
            });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, cap + 1, `第一轮应当正好请求 ${cap} 次`);
            assert.match(r.stdout, /\[工具调用轮数过多，已停止\]/);
            assert.match(r.stdout, /好的，停下了。/);
            const last = convo(r.requests[cap].body);
            assert.equal(last.filter((m) => m.role === 'tool').length, cap);
            assert.deepEqual(last.slice(-2), [
                { role: 'assistant', content: '工具调用轮数过多，已停止' },
                { role: 'user', content: '继续' },
            ]);
        });
    });
}
