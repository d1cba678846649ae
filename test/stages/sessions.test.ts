// Day 6 的命名对话与存档：经真实入口验证跨进程保存、恢复、合并和坏文件保护。只在加固版上跑（课由检查和 lessons.test.ts 测）。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { text } from '../../scripts/fake-model/replies.ts';
import type { RecordedRequest } from '../../scripts/fake-model/server.ts';
import { runAgent, type AgentRun } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { ownState, workdir } from '../helpers/workdir.ts';

// 发给模型的对话（Day 11 起最前面多一条每次重建的 system 消息，这里去掉）
const convo = (body: any): any[] => body.messages.filter((m: any) => m.role !== 'system');
// 模型回显用户最后一句：测试不必关心回复队列的顺序
const echo = (req: RecordedRequest) => text(`收到：${convo(req.body).filter((m) => m.role === 'user').at(-1)?.content}`);

/** 每次运行都正常结束：退出码 0，最后一行是 bye。 */
function assertCleanExit(r: AgentRun): void {
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /bye\n$/);
}

const sessionsFile = (cwd: string) => path.join(cwd, '.geekagent', 'sessions.json');
const readArchive = (cwd: string) => JSON.parse(fs.readFileSync(sessionsFile(cwd), 'utf8'));

function writeArchive(cwd: string, text: string): void {
    fs.mkdirSync(path.join(cwd, '.geekagent'), { recursive: true });
    fs.writeFileSync(sessionsFile(cwd), text);
    ownState(cwd, '.geekagent/sessions.json');   // 这份存档算这个用户的 Agent 写的
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 命名对话与存档`, () => {
        test('重启后恢复：/new、对话、/save、退出；新进程 /load、/open 后请求带着之前的消息', async () => {
            const cwd = workdir();
            const first = await runAgent(stage, { cwd, input: ['/new work', '记住暗号：蓝莓', '/save'], replies: echo });
            assertCleanExit(first);
            const file = sessionsFile(cwd);
            assert.match(first.stdout, /（已新建并切换到对话 work）/);
            assert.ok(first.stdout.includes(`（已保存 2 个对话到 ${file}）`), first.stdout);
            assert.ok(first.stdout.includes(`（退出前已保存 2 个对话到 ${file}）`), first.stdout);
            assert.doesNotMatch(first.stdout, /对话 id：/, '当前对话有名字时不生成 id');
            const archive = readArchive(cwd);
            assert.equal(archive.current, 'work');
            assert.deepEqual(archive.sessions.default, []);
            assert.deepEqual(archive.sessions.work, [
                { role: 'user', content: '记住暗号：蓝莓' },
                { role: 'assistant', content: '收到：记住暗号：蓝莓' },
            ]);
            // 两格缩进、结尾换行（原子写入的格式）
            assert.equal(fs.readFileSync(file, 'utf8'), JSON.stringify(archive, null, 2) + '\n');

            const second = await runAgent(stage, { cwd, input: ['/sessions', '/load', '/sessions', '/open default', '/open work', '暗号是什么？'], replies: echo });

            assertCleanExit(second);
            assert.ok(second.stdout.includes(`（已从 ${file} 恢复 2 个对话，当前：work）`), second.stdout);
            // 启动时不自动加载：/load 之前只有空的 default
            assert.match(second.stdout, /对话：\n\* default（0 条消息）\n/);
            assert.match(second.stdout, /对话：\n  default（0 条消息）\n\* work（2 条消息）\n/);
            assert.match(second.stdout, /（已切换到对话 work，2 条消息）/);
            assert.equal(second.requests.length, 1);
            assert.deepEqual(convo(second.requests[0].body), [
                { role: 'user', content: '记住暗号：蓝莓' },
                { role: 'assistant', content: '收到：记住暗号：蓝莓' },
                { role: 'user', content: '暗号是什么？' },
            ]);
            assert.equal(readArchive(cwd).sessions.work.length, 4);
        });

        test('退出时自动保存：有内容的 default 改名为 8 位 id 并提示；按提示可以在新进程里打开', async () => {
            const cwd = workdir();
            const first = await runAgent(stage, { cwd, input: ['你好'], replies: echo });
            assertCleanExit(first);
            const m = /（对话 id：([0-9a-f]{8})——重启后先 \/load 再 \/open \1）/.exec(first.stdout);
            assert.ok(m, first.stdout);
            const id = m[1];
            assert.match(first.stdout, /（退出前已保存 1 个对话到 .*sessions\.json）\n（对话 id：/);
            const archive = readArchive(cwd);
            assert.equal(archive.current, id);
            assert.deepEqual(Object.keys(archive.sessions), [id]);
            assert.equal(archive.sessions[id].length, 2);

            const second = await runAgent(stage, { cwd, input: ['/load', `/open ${id}`, '继续'], replies: echo });

            assertCleanExit(second);
            assert.match(second.stdout, new RegExp(`（已切换到对话 ${id}，2 条消息）`));
            assert.deepEqual(convo(second.requests[0].body).map((x) => x.content), ['你好', '收到：你好', '继续']);
            assert.doesNotMatch(second.stdout, /对话 id：/, '已有名字的对话不再生成 id');
        });

        test('空的 default 退出时不生成 id；/new 的用法和错误提示', async () => {
            const cwd = workdir();
            const r = await runAgent(stage, { cwd, input: ['/new', '/new bad/id', '/new ok', '/new ok', '/open nope'], replies: echo });
            assertCleanExit(r);
            assert.match(r.stdout, /用法：\/new <id>/);
            assert.match(r.stderr, /新建失败：.*bad\/id/);
            assert.match(r.stderr, /新建失败：.*ok/);
            assert.match(r.stderr, /打开失败：.*nope/);
            assert.doesNotMatch(r.stdout, /对话 id：/);
            assert.deepEqual(readArchive(cwd), { current: 'ok', sessions: { default: [], ok: [] } });
        });

        test('sessions.json 损坏：/save 和退出都报告且不覆盖，文件逐字节不变；/load 报错且不改当前对话', async () => {
            const cwd = workdir();
            const corrupt = '{"current": "work", "sessions": {"work": [ {"role": "user", "content": "半截';
            writeArchive(cwd, corrupt);
            const r = await runAgent(stage, { cwd, input: ['你好', '/save', '/load', '/sessions'], replies: echo });
            assertCleanExit(r);
            assert.equal((r.stderr.match(/sessions\.json 无法读取，没有覆盖它：\.geekagent\/sessions\.json:1:\d+：JSON 写坏了/g) ?? []).length, 2, r.stderr);
            assert.match(r.stderr, /没有载入存档：\.geekagent\/sessions\.json:1:\d+：JSON 写坏了/);
            assert.match(r.stdout, /\* default（2 条消息）/);
            assert.doesNotMatch(r.stdout, /已保存/);
            assert.equal(fs.readFileSync(sessionsFile(cwd), 'utf8'), corrupt);
            assert.deepEqual(fs.readdirSync(path.join(cwd, '.geekagent')).filter((f) => f.endsWith('.tmp')), []);
        });

        test('格式不对的存档（角色无效、current 不存在）同样不覆盖', async () => {
            for (const bad of [
                '{"current":"a","sessions":{"a":[{"role":"robot","content":"x"}]}}\n',
                '{"current":"toString","sessions":{"a":[]}}\n',
            ]) {
                const cwd = workdir();
                writeArchive(cwd, bad);
                const r = await runAgent(stage, { cwd, input: ['/load', '你好'], replies: echo });
                assertCleanExit(r);
                assert.match(r.stderr, /存档不是有效的对话数据/);
                assert.match(r.stderr, /没有覆盖/);
                assert.equal(fs.readFileSync(sessionsFile(cwd), 'utf8'), bad);
                assert.deepEqual(convo(r.requests[0].body), [{ role: 'user', content: '你好' }]);
            }
        });

        test('保存与文件合并：只在文件里的对话保留；内存里空的 default 不覆盖文件里有内容的 default', async () => {
            const cwd = workdir();
            const old = [{ role: 'user', content: '旧问题' }, { role: 'assistant', content: '旧回答' }];
            const def = [{ role: 'user', content: '默认里的话' }, { role: 'assistant', content: '嗯' }];
            writeArchive(cwd, JSON.stringify({ current: 'old', sessions: { default: def, old } }));
            const r = await runAgent(stage, { cwd, input: ['/new fresh', '新问题', '/save'], replies: echo });
            assertCleanExit(r);
            assert.match(r.stdout, /（已保存 3 个对话到 /);
            const archive = readArchive(cwd);
            assert.equal(archive.current, 'fresh');
            assert.deepEqual(Object.keys(archive.sessions).sort(), ['default', 'fresh', 'old']);
            assert.deepEqual(archive.sessions.old, old);
            assert.deepEqual(archive.sessions.default, def);
            assert.deepEqual(archive.sessions.fresh.map((m: any) => m.content), ['新问题', '收到：新问题']);
        });

        test('生成的 id 不与文件里已有的对话重名，也不丢掉文件里的对话', async () => {
            const cwd = workdir();
            assertCleanExit(await runAgent(stage, { cwd, input: ['第一次'], replies: echo }));
            assertCleanExit(await runAgent(stage, { cwd, input: ['第二次'], replies: echo }));
            const archive = readArchive(cwd);
            const ids = Object.keys(archive.sessions);
            assert.equal(ids.length, 2);
            assert.ok(ids.every((id) => /^[0-9a-f]{8}$/.test(id)));
            const firsts = ids.map((id) => archive.sessions[id][0].content).sort();
            assert.deepEqual(firsts, ['第一次', '第二次']);
        });
    });
}
