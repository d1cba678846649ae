// Day 8 的权限表、目录隔离和密钥脱敏：经真实入口、管道输入、假 OpenAI 服务验证。只在加固版上跑（课由检查和 lessons.test.ts 测）。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent, userTexts } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

const PERMISSIONS = path.join('.geekagent', 'GeekAgent.json');
const DAY8_DEFAULTS = {
    get_current_time: 'allow', run_shell: 'ask', ls: 'allow', read: 'allow', glob: 'allow', write: 'ask', patch: 'ask',
};

function writePermissions(cwd: string, text: string): void {
    fs.mkdirSync(path.join(cwd, '.geekagent'), { recursive: true });
    fs.writeFileSync(path.join(cwd, PERMISSIONS), text);
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 权限表 .geekagent/GeekAgent.json`, () => {
        test('文件不存在：写入默认权限表（root 为 ..，内置工具的默认策略）', async () => {
            const cwd = workdir();
            const r = await runAgent(stage, { cwd });
            assert.equal(r.code, 0, r.stderr);
            const written = JSON.parse(fs.readFileSync(path.join(cwd, PERMISSIONS), 'utf8'));
            assert.equal(written.root, '..');
            for (const [name, policy] of Object.entries(DAY8_DEFAULTS)) assert.equal(written.tools[name], policy, name);
            for (const policy of Object.values(written.tools)) assert.ok(['allow', 'ask', 'deny'].includes(policy as string));
        });

        test('deny：工具不执行，结果是权限拒绝，也不询问', async () => {
            const cwd = workdir({ 'secret.txt': 'DENIED-CONTENT' });
            writePermissions(cwd, '{"root":"..","tools":{"read":"deny"}}');
            const r = await runAgent(stage, { cwd, input: ['读 secret.txt'], replies: [tools(call('c1', 'read', { path: 'secret.txt' })), text('好吧')] });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.results.c1, /权限拒绝/);
            assert.match(r.results.c1, /read/);
            assert.doesNotMatch(JSON.stringify(r.requests.map((q) => q.body)), /DENIED-CONTENT/);
            assert.doesNotMatch(r.stdout, /\[y\/N\]/);
        });

        test('run_shell 设为 allow：不询问直接执行，下一行输入仍是对话', async () => {
            const cwd = workdir();
            writePermissions(cwd, '{"root":"..","tools":{"run_shell":"allow"}}');
            // 项目配置放行了默认要询问的工具：第一行 y 回答启动时的信任问题，之后不再有任何确认
            const r = await runAgent(stage, { cwd, input: ['y', '跑个命令', '下一句'], replies: [
                tools(call('c1', 'run_shell', { command: 'echo allowed-$((40+2))' })), text('跑完了'), text('嗯'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.c1, 'allowed-42');
            assert.match(r.stdout, /信任文件夹 .* 吗？/);
            assert.equal(r.stdout.split('[y/N]').length - 1, 1, '只有信任问题');
            assert.doesNotMatch(r.stdout, /即将执行命令/);
            assert.deepEqual(userTexts(r.requests.at(-1)!.body), ['跑个命令', '下一句']);
        });

        test('用户把 read 设为 ask：询问「工具 read 请求执行」，下一行 y 同意、n 拒绝', async () => {
            const cwd = workdir({ 'note.txt': 'NOTE-BODY' });
            writePermissions(cwd, '{"root":"..","tools":{"read":"ask"}}');
            const yes = await runAgent(stage, { cwd, input: ['读 note.txt', 'y'], replies: [tools(call('c1', 'read', { path: 'note.txt' })), text('读到了')] });
            assert.match(yes.stdout, /工具 read 请求执行\n\[y\/N\] y\n/);
            assert.match(yes.results.c1, /NOTE-BODY/);
            assert.deepEqual(userTexts(yes.requests.at(-1)!.body), ['读 note.txt'], '确认的回答不是对话');

            const no = await runAgent(stage, { cwd, input: ['读 note.txt', 'n'], replies: [tools(call('c1', 'read', { path: 'note.txt' })), text('被拒绝了')] });
            assert.match(no.stdout, /\[y\/N\] n\n/);
            assert.match(no.results.c1, /权限拒绝/);
            assert.doesNotMatch(no.results.c1, /NOTE-BODY/);
        });

        test('root 相对于 .geekagent 目录解析：文件工具以它为根', async () => {
            const cwd = workdir({ 'sub/inner.txt': 'INNER', 'top.txt': 'TOP' });
            writePermissions(cwd, '{"root":"../sub","tools":{}}');
            const r = await runAgent(stage, { cwd, input: ['看看'], replies: [
                tools(call('c1', 'read', { path: 'inner.txt' }), call('c2', 'read', { path: '../top.txt' }), call('c3', 'ls', {})),
                text('好'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.results.c1, /INNER/);
            assert.match(r.results.c2, /路径越界/);
            assert.match(r.results.c3, /inner\.txt/);
            assert.doesNotMatch(r.results.c3, /top\.txt/);
        });

        for (const [why, content] of [
            ['不是 JSON', '{ "root": "..", tools: '],
            ['策略不是 allow/ask/deny', '{"root":"..","tools":{"read":"maybe"}}'],
            ['root 为空', '{"root":"","tools":{}}'],
            ['tools 不是对象', '{"root":"..","tools":["read"]}'],
        ]) {
            test(`权限表${why}：启动时报错并退出 1，不发请求，文件不被改写`, async () => {
                const cwd = workdir();
                writePermissions(cwd, content);
                const r = await runAgent(stage, { cwd, input: ['你好'] });
                assert.equal(r.code, 1);
                assert.match(r.stderr, /\.geekagent\/GeekAgent\.json/);
                assert.equal(r.requests.length, 0);
                assert.equal(fs.readFileSync(path.join(cwd, PERMISSIONS), 'utf8'), content);
            });
        }
    });

    describe(`${stage}: 目录隔离`, () => {
        test('读、列、查找根目录之外：..、绝对路径、指向外面的符号链接都被拒绝，外面的内容不会发给模型', async () => {
            const outside = workdir({ 'secret.txt': 'OUTSIDE-SECRET' });
            const cwd = workdir({ 'inside.txt': 'INSIDE-OK' });
            fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(cwd, 'link.txt'));
            fs.symlinkSync(outside, path.join(cwd, 'linkdir'));
            const up = path.relative(cwd, outside);   // ../geekagent-test-XXXX
            const r = await runAgent(stage, { cwd, input: ['试试越界'], replies: [
                tools(
                    call('read_up', 'read', { path: `${up}/secret.txt` }),
                    call('read_abs', 'read', { path: path.join(outside, 'secret.txt') }),
                    call('read_link', 'read', { path: 'link.txt' }),
                    call('read_linkdir', 'read', { path: 'linkdir/secret.txt' }),
                    call('ls_up', 'ls', { path: '..' }),
                    call('ls_linkdir', 'ls', { path: 'linkdir' }),
                    call('glob_up', 'glob', { pattern: `${up}/*` }),
                    call('glob_abs', 'glob', { pattern: `${outside}/*` }),
                    call('read_ok', 'read', { path: 'inside.txt' }),
                ),
                text('都被挡住了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            for (const id of ['read_up', 'read_abs', 'read_link', 'read_linkdir', 'ls_up', 'ls_linkdir']) {
                assert.match(r.results[id], /路径越界/, `${id}: ${r.results[id]}`);
            }
            for (const id of ['glob_up', 'glob_abs']) assert.match(r.results[id], /^glob 失败：/, `${id}: ${r.results[id]}`);
            assert.match(r.results.read_ok, /INSIDE-OK/);
            const sent = JSON.stringify(r.requests.map((q) => q.body));
            assert.doesNotMatch(sent, /OUTSIDE-SECRET/);
        });

        test('写到根目录之外：..、经过符号链接目录、悬空的符号链接、patch 符号链接文件都被拒绝，不询问，外面什么也没写', async () => {
            const outside = workdir({ 'secret.txt': 'OUTSIDE-SECRET' });
            const cwd = workdir();
            fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(cwd, 'link.txt'));
            fs.symlinkSync(outside, path.join(cwd, 'linkdir'));
            // 悬空的链接：目标还不存在，写入会顺着它在外面新建文件
            fs.symlinkSync(path.join(outside, 'via-dangling.txt'), path.join(cwd, 'dangling.txt'));
            fs.symlinkSync(path.join(outside, 'nodir'), path.join(cwd, 'danglingdir'));
            const up = path.relative(cwd, outside);
            // 后面排着 y：如果真的弹出了确认，y 会同意写入，测试就能发现
            const r = await runAgent(stage, { cwd, input: ['写到外面去', 'y', 'y', 'y', 'y', 'y', 'y'], replies: [
                tools(
                    call('w_up', 'write', { path: `${up}/evil.txt`, content: 'EVIL' }),
                    call('w_abs', 'write', { path: path.join(outside, 'evil-abs.txt'), content: 'EVIL' }),
                    call('w_linkdir', 'write', { path: 'linkdir/evil.txt', content: 'EVIL' }),
                    call('w_dangling', 'write', { path: 'dangling.txt', content: 'EVIL' }),
                    call('w_danglingdir', 'write', { path: 'danglingdir/evil.txt', content: 'EVIL' }),
                    call('p_link', 'patch', { path: 'link.txt', hunks: [{ old: 'OUTSIDE', new: 'EVIL' }] }),
                ),
                text('写不了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            for (const id of ['w_up', 'w_abs', 'w_linkdir', 'w_dangling', 'w_danglingdir', 'p_link']) {
                assert.match(r.results[id], /路径越界/, `${id}: ${r.results[id]}`);
            }
            assert.doesNotMatch(r.stdout, /\[y\/N\]/);
            assert.deepEqual(fs.readdirSync(outside), ['secret.txt']);
            assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'OUTSIDE-SECRET');
            assert.ok(fs.lstatSync(path.join(cwd, 'dangling.txt')).isSymbolicLink());
            assert.ok(!fs.existsSync(path.join(cwd, '.geekagent', 'undo.json')), '被拒绝的写入不该留下撤销记录');
        });

        test('根目录内的写入照常：新建子目录里的文件，结果里报告相对路径，确认里是绝对路径', async () => {
            const cwd = workdir();
            const r = await runAgent(stage, { cwd, input: ['写个文件', 'y'], replies: [tools(call('w', 'write', { path: 'a/b/c.txt', content: 'hi\n' })), text('写好了')] });
            assert.equal(r.results.w, '已写入 a/b/c.txt');
            assert.ok(r.stdout.includes(`确认写入 ${path.join(cwd, 'a/b/c.txt')}？`), r.stdout);
            assert.equal(fs.readFileSync(path.join(cwd, 'a/b/c.txt'), 'utf8'), 'hi\n');
        });
    });

    describe(`${stage}: 密钥脱敏`, () => {
        const SECRET = 'supersecretvalue123';

        test('read 读到的和 run_shell 输出的密钥值都被替换成 [REDACTED:NAME]，任何请求里都没有原值', async () => {
            const cwd = workdir({ 'config.txt': `api_key=${SECRET}\nshort=abc\n` });
            const r = await runAgent(stage, { cwd, input: ['看看配置', 'y', '再说一次'], replies: [
                tools(call('r', 'read', { path: 'config.txt' }), call('s', 'run_shell', { command: 'echo $MY_API_KEY' })),
                text('配置里有一个密钥'),
                text('还是那个密钥'),
            ], env: { MY_API_KEY: SECRET, SHORT_TOKEN: 'abc' } });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 3);
            assert.match(r.results.r, /api_key=\[REDACTED:MY_API_KEY\]\n/);
            // 少于 4 个字符的值不脱敏（C3）
            assert.match(r.results.r, /short=abc/);
            assert.doesNotMatch(r.results.r, /REDACTED:SHORT_TOKEN/);
            assert.equal(r.results.s, '[REDACTED:MY_API_KEY]');
            const sent = JSON.stringify(r.requests.map((q) => q.body));
            assert.ok(!sent.includes(SECRET), '密钥原值被发给了模型');
            assert.ok(sent.includes('[REDACTED:MY_API_KEY]'));
            assert.ok(!r.stdout.includes(SECRET), '密钥原值显示在了屏幕上');
        });

        test('确认提示里的 diff 显示原文，并说出其中有几处是你的密钥', async () => {
            const cwd = workdir();
            const r = await runAgent(stage, { cwd, input: ['写个配置', 'n'], replies: [
                tools(call('w', 'write', { path: 'env.txt', content: `TOKEN=${SECRET}\n` })),
                text('没写'),
            ], env: { MY_API_KEY: SECRET } });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(r.stdout.includes(`\n+TOKEN=${SECRET}\n`), r.stdout);
            assert.match(r.stdout, /确认写入 .*env\.txt？\n（上面显示的是原文，其中 1 处是你的密钥 MY_API_KEY）\n\[y\/N\]/);
            assert.equal(r.results.w, '已取消写入');
            assert.ok(!fs.existsSync(path.join(cwd, 'env.txt')));
        });
    });
}
