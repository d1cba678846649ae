// Day 8 的 /undo：经真实入口验证撤销新建、覆盖和 patch，撤销记录在磁盘上、重启后仍然有效。只在加固版上跑（课由检查和 lessons.test.ts 测）。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent, toolMessages, type AgentRun } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { ownState, workdir } from '../helpers/workdir.ts';

const undoFile = (cwd: string) => path.join(cwd, '.geekagent', 'undo.json');
const write = (id: string, file: string, content: string) => tools(call(id, 'write', { path: file, content }));
/** 这次运行里全部工具结果的文字。 */
const results = (r: AgentRun): string[] => r.requests.flatMap((q) => toolMessages(q.body).map((m) => m.content));

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: /undo`, () => {
        test('同一进程里：撤销新建（文件被删除）、撤销覆盖（旧内容恢复）；没有记录时提示', async () => {
            const cwd = workdir({ 'old.txt': 'original\n' });
            const r = await runAgent(stage, { cwd, input: ['建个文件', 'y', '/undo', '改个文件', 'y', '/undo', '/undo'], replies: [
                write('c1', 'new.txt', 'fresh\n'), text('建好了'),
                write('c2', 'old.txt', 'changed\n'), text('改好了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(results(r).includes('已写入 new.txt'));
            assert.ok(results(r).includes('已写入 old.txt'));
            assert.match(r.stdout, /（已撤销对 new\.txt 的最近一次写入）\n/);
            assert.match(r.stdout, /（已撤销对 old\.txt 的最近一次写入）\n/);
            assert.match(r.stdout, /（没有可以撤销的写入）\n/);
            assert.ok(!fs.existsSync(path.join(cwd, 'new.txt')));
            assert.equal(fs.readFileSync(path.join(cwd, 'old.txt'), 'utf8'), 'original\n');
            assert.ok(!fs.existsSync(undoFile(cwd)), '撤销成功后记录被删除');
        });

        test('重启之后撤销：新建的文件（记录 content 为 null）和 patch 过的子目录文件', async () => {
            const cwd = workdir({ 'sub/deep.txt': 'v1\nkeep\n' });
            const made = await runAgent(stage, { cwd, input: ['建个文件', 'y'], replies: [write('c1', 'made.txt', 'hello'), text('好')] });
            assert.equal(made.code, 0, made.stderr);
            assert.equal(fs.readFileSync(path.join(cwd, 'made.txt'), 'utf8'), 'hello');
            assert.deepEqual(JSON.parse(fs.readFileSync(undoFile(cwd), 'utf8')), { path: 'made.txt', content: null });
            const first = await runAgent(stage, { cwd, input: ['/undo'] });
            assert.equal(first.code, 0, first.stderr);
            assert.match(first.stdout, /（已撤销对 made\.txt 的最近一次写入）/);
            assert.ok(!fs.existsSync(path.join(cwd, 'made.txt')));
            assert.ok(!fs.existsSync(undoFile(cwd)));

            const patched = await runAgent(stage, { cwd, input: ['改一下', 'y'], replies: [
                tools(call('p1', 'patch', { path: 'sub/deep.txt', hunks: [{ old: 'v1', new: 'v2' }] })),
                text('改好了'),
            ] });
            assert.equal(patched.code, 0, patched.stderr);
            assert.equal(fs.readFileSync(path.join(cwd, 'sub/deep.txt'), 'utf8'), 'v2\nkeep\n');
            assert.deepEqual(JSON.parse(fs.readFileSync(undoFile(cwd), 'utf8')), { path: 'sub/deep.txt', content: 'v1\nkeep\n' });
            const second = await runAgent(stage, { cwd, input: ['/undo', '/undo'] });
            assert.equal(second.code, 0, second.stderr);
            assert.match(second.stdout, /（已撤销对 sub\/deep\.txt 的最近一次写入）\n[^]*（没有可以撤销的写入）/);
            assert.equal(fs.readFileSync(path.join(cwd, 'sub/deep.txt'), 'utf8'), 'v1\nkeep\n');
        });

        test('原来是空文件：撤销后恢复成空文件而不是删除；拒绝的写入不留记录', async () => {
            const cwd = workdir({ 'empty.txt': '' });
            const r = await runAgent(stage, { cwd, input: ['写满它', 'y', '/undo', '再写一个', 'n', '/undo'], replies: [
                write('c1', 'empty.txt', 'full'), text('好'),
                write('c2', 'other.txt', 'x'), text('没写'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /（已撤销对 empty\.txt 的最近一次写入）/);
            assert.match(r.stdout, /（没有可以撤销的写入）/);
            assert.equal(fs.readFileSync(path.join(cwd, 'empty.txt'), 'utf8'), '');
            assert.ok(!fs.existsSync(path.join(cwd, 'other.txt')));
        });

        test('坏的撤销记录：无法解析、格式不对、路径越界都报「撤销失败」，不写任何文件', async () => {
            for (const [record, message] of [
                ['{"path": "a.txt", ', /撤销失败：读取撤销记录失败：/],
                ['{"path": 1, "content": "x"}', /撤销失败：撤销记录格式无效/],
                ['{"path": "../escaped.txt", "content": "EVIL"}', /撤销失败：路径越界/],
            ] as [string, RegExp][]) {
                const cwd = workdir();
                fs.mkdirSync(path.join(cwd, '.geekagent'), { recursive: true });
                fs.writeFileSync(undoFile(cwd), record);
                ownState(cwd, '.geekagent/undo.json');   // 是这个用户的 Agent 写的，只是被改坏了
                const r = await runAgent(stage, { cwd, input: ['/undo'] });
                assert.equal(r.code, 0, r.stderr);
                assert.match(r.stderr, message);
                assert.equal(fs.readFileSync(undoFile(cwd), 'utf8'), record, '恢复失败时记录保留');
                assert.ok(!fs.existsSync(path.join(cwd, '..', 'escaped.txt')));
            }
        });
    });
}
