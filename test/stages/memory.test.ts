// Day 10 的长期记忆：memory_write 写进 .geekagent/memory.json，下一个进程用 memory_search 找到，/memory 列出；
// 文件损坏时启动报错退出、不覆盖。经真实入口、管道输入、假 OpenAI 服务验证；只在加固版上跑。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent, toolResults } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { ownState, workdir } from '../helpers/workdir.ts';

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 长期记忆`, () => {
        test('一个进程写入的记忆，下一个进程（同一工作目录）用 memory_search 找到，/memory 列出', async () => {
            const cwd = workdir();
            const fact = '用户偏好：缩进用 Tab，不用空格';
            const first = await runAgent(stage, { cwd, input: ['/memory', '记住：我喜欢用 tab 缩进'], replies: [
                tools(
                    call('call_w', 'memory_write', { content: `  ${fact}\n` }),
                    call('call_dup', 'memory_write', { content: fact }),
                    call('call_blank', 'memory_write', { content: '   ' }),
                ),
                text('记住了。'),
            ] });
            assert.equal(first.code, 0, first.stderr);
            assert.match(first.stdout, /（还没有长期记忆）/);
            assert.deepEqual(toolResults(first.requests[1].body), {
                call_w: `已记住：${fact}`,
                call_dup: '这条记忆已经存在',
                call_blank: '缺少参数：content',
            });
            const file = path.join(cwd, '.geekagent', 'memory.json');
            assert.equal(fs.readFileSync(file, 'utf8'), JSON.stringify([fact], null, 2) + '\n');
            // 两个记忆工具默认放行（allow），不问就执行
            const offered = first.requests[0].body.tools.map((t: any) => t.function.name);
            assert.ok(offered.includes('memory_write') && offered.includes('memory_search'));
            assert.doesNotMatch(first.stdout, /\[y\/N\]/);

            const second = await runAgent(stage, { cwd, input: ['/memory', '我喜欢什么缩进？'], replies: [
                tools(call('call_s', 'memory_search', { query: 'TAB 缩进' }), call('call_miss', 'memory_search', { query: 'zzzqqq' })),
                text('你喜欢 Tab。'),
            ] });
            assert.equal(second.code, 0, second.stderr);
            assert.ok(second.stdout.includes(`长期记忆：\n1. ${fact}\n`), second.stdout);
            const results = toolResults(second.requests[1].body);
            assert.match(results.call_s, /^找到 1 条(相关)?记忆：\n1\. /);
            assert.ok(results.call_s.includes(fact), results.call_s);
            assert.equal(results.call_miss, '没有找到相关记忆');
        });

        test('memory_search：空查询报缺少参数；按命中关键词数排序', async () => {
            const cwd = workdir();
            fs.mkdirSync(path.join(cwd, '.geekagent'));
            fs.writeFileSync(path.join(cwd, '.geekagent', 'memory.json'), JSON.stringify(['  部署用 docker  ', '', '测试用 node test', 'docker 镜像推到 registry']));
            ownState(cwd, '.geekagent/memory.json');
            const r = await runAgent(stage, { cwd, input: ['/memory', '查一下'], replies: [
                tools(call('call_empty', 'memory_search', { query: '  ' }), call('call_q', 'memory_search', { query: 'docker registry' })),
                text('好。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            // 读入时去掉首尾空白、丢掉空项
            assert.ok(r.stdout.includes('长期记忆：\n1. 部署用 docker\n2. 测试用 node test\n3. docker 镜像推到 registry\n'), r.stdout);
            const results = toolResults(r.requests[1].body);
            assert.match(results.call_empty, /缺少参数：query|没有找到相关记忆/);
            const lines = results.call_q.split('\n');
            assert.match(lines[0], /^找到 2 条(相关)?记忆：$/);
            assert.ok(lines[1].includes('docker 镜像推到 registry'), results.call_q);
            assert.ok(lines[2].includes('部署用 docker'), results.call_q);
        });

        for (const [what, content] of [
            ['不是合法 JSON', '["半截'],
            ['不是数组', '{"facts":["a"]}'],
            ['数组里有非字符串', '["a", 42]'],
        ]) {
            test(`memory.json ${what}：启动时报错、退出码 1、不发请求、文件原样保留`, async () => {
                const cwd = workdir();
                fs.mkdirSync(path.join(cwd, '.geekagent'));
                const file = path.join(cwd, '.geekagent', 'memory.json');
                fs.writeFileSync(file, content);
                ownState(cwd, '.geekagent/memory.json');   // 是这个用户的：格式不对才报错
                const r = await runAgent(stage, { cwd, input: ['你好', '/exit'] });
                assert.equal(r.code, 1, r.stdout);
                assert.match(r.stderr, /读取长期记忆失败：.*memory\.json/);
                assert.equal(r.requests.length, 0);
                assert.equal(fs.readFileSync(file, 'utf8'), content);
                assert.ok(!fs.existsSync(path.join(cwd, '.geekagent', 'sessions.json')), '启动失败时不该保存对话');
            });
        }

        test('/reset 清空对话但保留长期记忆', async () => {
            const cwd = workdir();
            const r = await runAgent(stage, { cwd, input: ['记住部署用 k8s', '/reset', '/memory'], replies: [
                tools(call('call_w', 'memory_write', { content: '部署用 k8s' })),
                text('好。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /对话历史已清空，长期记忆保留/);
            assert.ok(r.stdout.includes('长期记忆：\n1. 部署用 k8s\n'), r.stdout);
        });
    });
}
