// 恶意的文件不让 Agent 卡死或撑爆内存：克隆来的文件夹可以把 .env、状态文件、mcp.json 换成命名管道、
// 指向 /dev/zero 的符号链接或者一个巨大的文件。读它们的地方先看清是什么：说一行中文（点名文件、给提示），不读，也不改写它。
// 不量时间：Agent 在运行器平常的期限内回答、退出，就说明没有卡住。
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

const posixOnly = { skip: process.platform === 'win32' };

/** 在 file 处放一个「不该读」的东西：命名管道、指向 /dev/zero 的符号链接，或一个超过上限的（稀疏）文件。 */
function plant(file: string, kind: 'fifo' | 'zero' | 'huge', bytes = 0): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (kind === 'fifo') execFileSync('mkfifo', [file]);
    else if (kind === 'zero') fs.symlinkSync('/dev/zero', file);
    else fs.truncateSync((fs.writeFileSync(file, ''), file), bytes);
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: .env 不是普通文件或太大`, () => {
        for (const [kind, why] of [['fifo', '不是普通文件'], ['zero', '不是普通文件'], ['huge', '超过 1 MiB 的上限']] as const) {
            test(`${kind}：说一行、这次不用 .env，照常回答`, posixOnly, async () => {
                const cwd = workdir();
                plant(path.join(cwd, '.env'), kind, 2 * 1024 * 1024);
                const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('照常回答')] });
                assert.equal(r.code, 0, r.stderr);
                assert.match(r.stdout, /照常回答/);
                assert.match(r.stderr, new RegExp(`拒绝读取 \\.env：${why}.*提示：.*（这次不用 \\.env）`));
                assert.equal(r.stderr.match(/拒绝读取/g)?.length, 1, '只说一次');
            });
        }
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 状态文件不是普通文件或太大`, () => {
        test('权限文件是命名管道：和写坏了一样报错退出，不请求模型、不改写它', posixOnly, async () => {
            const cwd = workdir();
            const file = path.join(cwd, '.geekagent', 'GeekAgent.json');
            plant(file, 'fifo');
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('不该回答')] });
            assert.equal(r.code, 1, r.stderr);
            assert.match(r.stderr, /读取 \.geekagent\/GeekAgent\.json 失败：拒绝读取 \.geekagent\/GeekAgent\.json：不是普通文件.*提示：/);
            assert.equal(r.requests.length, 0);
            assert.ok(fs.lstatSync(file).isFIFO());
        });

        test('存档超过 64 MiB：不载入、不覆盖，这次的对话另存', posixOnly, async () => {
            const cwd = workdir();
            const file = path.join(cwd, '.geekagent', 'sessions.json');
            plant(file, 'huge', 65 * 1024 * 1024);
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('照常回答')] });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /照常回答/);
            assert.match(r.stderr, /拒绝读取 \.geekagent\/sessions\.json：超过 64 MiB 的上限/);
            assert.equal(fs.statSync(file).size, 65 * 1024 * 1024, '文件原样保留');
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: mcp.json 不是普通文件`, () => {
        test('指向 /dev/zero：和写坏了一样说明，不启动服务器，照常回答', posixOnly, async () => {
            const cwd = workdir();
            plant(path.join(cwd, '.geekagent', 'mcp.json'), 'zero');
            const r = await runAgent(stage, { cwd, input: ['你好'], replies: [text('照常回答')] });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /照常回答/);
            assert.match(r.stderr, /读取 MCP 配置失败：拒绝读取 .*mcp\.json：不是普通文件.*提示：/);
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: read 不读特殊文件、只读要返回的那一页；write 不经硬链接写出去`, () => {
        test('命名管道、指向 /dev/zero 的链接：说明拒绝，照常回答；大文件只读第一页', posixOnly, async () => {
            const cwd = workdir({ 'small.txt': 'hello' });
            plant(path.join(cwd, 'pipe'), 'fifo');
            plant(path.join(cwd, 'zero'), 'zero');
            plant(path.join(cwd, 'big.bin'), 'huge', 8 * 1024 * 1024);
            const r = await runAgent(stage, { cwd, input: ['读读看'], replies: [
                tools(call('pipe', 'read', { path: 'pipe' }), call('zero', 'read', { path: 'zero' }), call('big', 'read', { path: 'big.bin' })),
                text('读完了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /读完了/);
            assert.match(r.results.pipe, /^读取文件失败：拒绝读取 .*pipe：不是普通文件/);
            // Day 8 起指向根目录之外的链接先被 safePath 挡住
            assert.match(r.results.zero, /^读取文件失败：(拒绝读取 .*zero：不是普通文件|路径越界：zero)/);
            // 8 MiB 的文件没有读到末尾：只说字节数，给下一页的 offset；整个文件是一行，说一声这一行到页末还没完
            assert.match(r.results.big, /^（文件有 8388608 字节，没读到末尾、不知道共多少个字符，本次读取 0-2000）\n\0{2000}\n这一页都在同一行里，这一行比一页还长，到页末还没完；还有更多内容；用 offset=2000 继续调用 read$/);
        });

        test('硬链接（nlink > 1）的文件：write 和 patch 都拒绝，说清原因；根目录外的那一份不变', async () => {
            const outside = workdir({ 'secret.txt': 'outside\n' });
            const cwd = workdir();
            fs.linkSync(path.join(outside, 'secret.txt'), path.join(cwd, 'link.txt'));
            const r = await runAgent(stage, { cwd, input: ['改一下', 'y', 'y'], replies: [
                tools(
                    call('w', 'write', { path: 'link.txt', content: 'pwned\n' }),
                    call('p', 'patch', { path: 'link.txt', hunks: [{ old: 'outside', new: 'pwned' }] }),
                ),
                text('改不了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            for (const id of ['w', 'p']) assert.match(r.results[id], /拒绝写入 .*link\.txt：它有 2 个硬链接，和别处的文件是同一份内容.*提示：/);
            assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'outside\n');
        });
    });
}

// 像 .env 的文件：注释掉的、被后面一行覆盖的旧密钥不在环境里，redact 认不出；读给模型时逐行换掉
const OLD_ENV = [
    '# DB_PASSWORD=old-commented-hunter2',
    'DB_PASSWORD=overridden-hunter3',
    'DB_PASSWORD=current-hunter4',
    'export DEPLOY_TOKEN="quoted-token-value"',
    '#export API_KEY=commented-api-key-value',
    'DEBUG=1',
    'EMPTY_SECRET=',
].join('\n');
const OLD_VALUES = /hunter\d|quoted-token|commented-api/;

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 像 .env 的文件逐行脱敏`, () => {
        test('read：注释掉的、被覆盖的、export 的密钥值都换成 [REDACTED:名字]，别的行不变', async () => {
            const cwd = workdir({ '.env.example': OLD_ENV });
            const r = await runAgent(stage, { cwd, input: ['读 .env.example'], replies: [
                tools(call('env', 'read', { path: '.env.example' })),
                text('读完了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.env.split('\n').slice(1).join('\n'), [
                '# DB_PASSWORD=[REDACTED:DB_PASSWORD]',
                'DB_PASSWORD=[REDACTED:DB_PASSWORD]',
                'DB_PASSWORD=[REDACTED:DB_PASSWORD]',
                'export DEPLOY_TOKEN=[REDACTED:DEPLOY_TOKEN]',
                '#export API_KEY=[REDACTED:API_KEY]',
                'DEBUG=1',
                'EMPTY_SECRET=',
            ].join('\n'));
            assert.doesNotMatch(JSON.stringify(r.requests.map((q) => q.body)), OLD_VALUES);
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 像 .env 的文件：search 不搜，rag_add 逐行脱敏`, () => {
        test('search 整个不搜这个文件（命中本身就回答了猜的对不对），收录的本地文件里没有旧密钥', async () => {
            const cwd = workdir({ 'deploy.env': OLD_ENV });
            const r = await runAgent(stage, { cwd, input: ['找找看', 'y', '/rag'], replies: [
                tools(call('s', 'search', { pattern: 'hunter' }), call('add', 'rag_add', { source: 'deploy.env' })),
                tools(call('q', 'rag_search', { query: 'DB_PASSWORD DEPLOY_TOKEN' })),
                text('找完了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.s, '没有找到 "hunter" 的匹配。含密钥的文件不搜，要看用 read（密钥会脱敏）');
            assert.match(r.results.add, /已加入知识库/);
            assert.match(r.results.q, /DEPLOY_TOKEN=\[REDACTED:DEPLOY_TOKEN\]/);
            assert.doesNotMatch(JSON.stringify(r.requests.map((q) => q.body)), OLD_VALUES);
            assert.doesNotMatch(fs.readFileSync(path.join(cwd, '.geekagent/rag/index.json'), 'utf8'), OLD_VALUES);
        });
    });
}

// 权限文件里 read 是 deny：把文件内容交给模型的别的工具也一起拒绝
const DENY_READ = JSON.stringify({ root: '..', tools: { read: 'deny' } });

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: read 为 deny 时 git_diff 也拒绝`, () => {
        test('git_diff 不问就拒绝', async () => {
            const cwd = workdir({ '.geekagent/GeekAgent.json': DENY_READ });
            const r = await runAgent(stage, { cwd, input: ['/use code-review', '看改动', 'y'], replies: [
                tools(call('d', 'git_diff'), call('r', 'read', { path: '.geekagent/GeekAgent.json' })),
                text('看不了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.d, '权限拒绝：不允许使用工具 git_diff');
            assert.equal(r.results.r, '权限拒绝：不允许使用工具 read');
            assert.doesNotMatch(r.stdout, /git_diff 请求执行/);
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: read 为 deny 时 search、rag_add 也拒绝`, () => {
        test('search 拿不到文件的行，rag_add 不收录本地文件', async () => {
            const cwd = workdir({ '.geekagent/GeekAgent.json': DENY_READ, 'notes.txt': '机密笔记：发射代码 1234\n' });
            const r = await runAgent(stage, { cwd, input: ['找找看', 'y'], replies: [
                tools(call('s', 'search', { pattern: '发射代码' }), call('add', 'rag_add', { source: 'notes.txt' })),
                text('看不了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.s, '权限拒绝：不允许使用工具 search');
            assert.equal(r.results.add, '权限拒绝：不允许使用工具 rag_add');
            assert.doesNotMatch(JSON.stringify(r.requests.map((q) => q.body)), /1234/);
        });
    });
}
