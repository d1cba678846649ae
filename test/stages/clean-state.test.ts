// 文件留在项目里、不留明文：撤销记录不存带密钥的旧内容、只给自己读写（0600）；.geekagent/ 的状态文件和追踪文件
// 不经符号链接读写（克隆来的仓库可以让它们指向项目外面）。经真实入口、管道输入、假 OpenAI 服务验证。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

const UNDO = path.join('.geekagent', 'undo.json');
const TRACE = path.join('.geekagent', 'trace.log');
const TOKEN = 'Tk5Rw8Lp2Zq7Vn3Xc9Bm';
const mode = (file: string) => fs.statSync(file).mode & 0o777;
const write = (id: string, file: string, content: string) => tools(call(id, 'write', { path: file, content }));

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 撤销记录不留明文`, () => {
        test('覆盖带密钥的 .env（0600）：undo.json 里没有旧内容、权限 0600，/undo 说明不能撤销且不动文件', async () => {
            // 只有 Agent 自己的设置（GEEKAGENT_*）：文件夹信任不为它提问；名字里有 TOKEN，是密钥
            const cwd = workdir({ '.env': `GEEKAGENT_DEPLOY_TOKEN=${TOKEN}\n` });
            fs.chmodSync(path.join(cwd, '.env'), 0o600);
            const r = await runAgent(stage, { cwd, input: ['改一下 .env', 'y'], replies: [write('c1', '.env', 'GEEKAGENT_NOTE=rotated\n'), text('改好了')] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.c1, '已写入 .env');
            const record = fs.readFileSync(path.join(cwd, UNDO), 'utf8');
            assert.ok(!record.includes(TOKEN), `撤销记录里有密钥：${record}`);
            assert.deepEqual(JSON.parse(record), { path: '.env', withheld: 'secret' });
            assert.equal(mode(path.join(cwd, UNDO)), 0o600);
            const undone = await runAgent(stage, { cwd, input: ['/undo'] });
            assert.equal(undone.code, 0, undone.stderr);
            assert.match(undone.stderr, /撤销失败：\.env 写入前的内容里有密钥，没有存进撤销记录，这次写入不能撤销/);
            assert.equal(fs.readFileSync(path.join(cwd, '.env'), 'utf8'), 'GEEKAGENT_NOTE=rotated\n', '不能撤销时不动文件');
        });

        test('没有密钥的 0600 文件：照常能撤销，撤销记录也只有自己能读写', async () => {
            const cwd = workdir({ 'private.txt': '只给自己看\n' });
            fs.chmodSync(path.join(cwd, 'private.txt'), 0o600);
            const r = await runAgent(stage, { cwd, input: ['改一下', 'y'], replies: [write('c1', 'private.txt', '改过了\n'), text('好')] });
            assert.equal(r.code, 0, r.stderr);
            assert.deepEqual(JSON.parse(fs.readFileSync(path.join(cwd, UNDO), 'utf8')), { path: 'private.txt', content: '只给自己看\n' });
            assert.equal(mode(path.join(cwd, UNDO)), 0o600, '撤销记录不比原文件的权限宽');
            assert.equal(mode(path.join(cwd, '.geekagent', 'sessions.json')), 0o600, '对话存档也只给自己');
            const undone = await runAgent(stage, { cwd, input: ['/undo'] });
            assert.equal(undone.code, 0, undone.stderr);
            assert.equal(fs.readFileSync(path.join(cwd, 'private.txt'), 'utf8'), '只给自己看\n');
            assert.equal(mode(path.join(cwd, 'private.txt')), 0o600);
        });
    });

    describe(`${stage}: 状态文件不经符号链接`, () => {
        test('sessions.json 是指向项目外文件的链接：/load 和退出时的保存都拒绝读它、说出文件名，对话另存；外面的文件不变', async () => {
            const archive = JSON.stringify({ current: 'x', sessions: { x: [{ role: 'user', content: '外面的私事 Zr81' }] } });
            const outside = workdir({ 'archive.json': archive });
            const cwd = workdir();
            fs.mkdirSync(path.join(cwd, '.geekagent'));
            fs.symlinkSync(path.join(outside, 'archive.json'), path.join(cwd, '.geekagent', 'sessions.json'));
            const r = await runAgent(stage, { cwd, input: ['/load', '你好'], replies: [text('你好')] });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(!JSON.stringify(r.requests.map((q) => q.body)).includes('Zr81'), '项目外的文件进了请求');
            assert.match(r.stdout + r.stderr, /没有载入存档：拒绝读取 \.geekagent\/sessions\.json：\.geekagent\/sessions\.json 是符号链接/);
            assert.match(r.stderr, /这次的对话另存到 .*\.geekagent\/sessions-/);
            assert.ok(fs.lstatSync(path.join(cwd, '.geekagent', 'sessions.json')).isSymbolicLink(), '链接没有被换掉');
            assert.equal(fs.readFileSync(path.join(outside, 'archive.json'), 'utf8'), archive);
        });

        test('undo.json 是指向项目外文件的链接：写入前存不了撤销记录，这次写入就不做，说出文件名', async () => {
            const outside = workdir({ 'profile': 'export PATH=/usr/bin\n' });
            const cwd = workdir({ 'a.txt': 'old\n' });
            fs.mkdirSync(path.join(cwd, '.geekagent'));
            fs.symlinkSync(path.join(outside, 'profile'), path.join(cwd, UNDO));
            const r = await runAgent(stage, { cwd, input: ['改一下', 'y'], replies: [write('c1', 'a.txt', 'new\n'), text('好')] });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.results.c1, /^工具执行失败：拒绝写入 \.geekagent\/undo\.json：\.geekagent\/undo\.json 是符号链接/);
            assert.equal(fs.readFileSync(path.join(cwd, 'a.txt'), 'utf8'), 'old\n');
            assert.ok(fs.lstatSync(path.join(cwd, UNDO)).isSymbolicLink(), '链接没有被换掉');
            assert.equal(fs.readFileSync(path.join(outside, 'profile'), 'utf8'), 'export PATH=/usr/bin\n');
        });

        test('.geekagent 整个是指向项目外目录的链接：不往那里写任何状态，报错说出是哪个文件', async () => {
            const outside = workdir();
            const cwd = workdir();
            fs.symlinkSync(outside, path.join(cwd, '.geekagent'));
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('你好')] });
            assert.match(r.stderr, /拒绝读取 \.geekagent\/GeekAgent\.json：\.geekagent 是符号链接/);
            assert.deepEqual(fs.readdirSync(outside), [], '项目外的目录里多了文件');
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 追踪文件不经符号链接`, () => {
        test('trace.log 是指向项目外文件的链接：不往里追加，启动时说明原因；/trace 再开也一样', async () => {
            const outside = workdir({ 'rc.sh': '# shell 启动时读的文件\n' });
            const cwd = workdir();
            fs.mkdirSync(path.join(cwd, '.geekagent'));
            fs.symlinkSync(path.join(outside, 'rc.sh'), path.join(cwd, TRACE));
            const r = await runAgent(stage, { cwd, input: ['你好', '/trace'], replies: [text('$(touch pwned)')], env: { GEEKAGENT_TRACE: 'llm' } });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /\$\(touch pwned\)/, '对话照常');
            assert.equal(fs.readFileSync(path.join(outside, 'rc.sh'), 'utf8'), '# shell 启动时读的文件\n', '追踪写到了项目外');
            const refused = /（协议追踪没有开启：\.geekagent\/trace\.log 是符号链接，不往里写追踪（它可能指向项目之外））/g;
            assert.equal((r.stdout.match(refused) ?? []).length, 2, r.stdout);
        });

        test('.geekagent 是指向项目外目录的链接：追踪不写进去', async () => {
            const outside = workdir();
            const cwd = workdir();
            fs.symlinkSync(outside, path.join(cwd, '.geekagent'));
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('你好')], env: { GEEKAGENT_TRACE: 'llm' } });
            assert.ok(!fs.existsSync(path.join(outside, 'trace.log')), '追踪写到了项目外');
            assert.match(r.stdout + r.stderr, /\.geekagent 是符号链接/);
        });
    });
}
