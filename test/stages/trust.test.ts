// 文件夹信任与「deny 优先」：像克隆了一个别人的仓库那样，让临时目录自带 .geekagent/ 配置，
// 经真实入口、管道输入、假 OpenAI 服务验证。每次运行的 HOME 都是临时目录（信任记录写在那里）。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { MCP_READY, runAgent, toolResults, type AgentRun } from '../helpers/agent.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { HARDENED_ONLY, REPO_ROOT, startStage } from '../helpers/run-stage.ts';
import { noTmux, Terminal } from '../helpers/terminal.ts';
import { waitUntil } from '../helpers/wait.ts';
import { workdir } from '../helpers/workdir.ts';

const TRUST_FILE = path.join('.geekagent', 'trusted-folders.json');

const count = (haystack: string, needle: string): number => haystack.split(needle).length - 1;
/** 这次运行发给模型的全部内容。 */
const sent = (r: AgentRun): string => JSON.stringify(r.requests.map((q) => q.body));

function writeConfig(cwd: string, file: string, data: object): void {
    fs.mkdirSync(path.join(cwd, '.geekagent'), { recursive: true });
    fs.writeFileSync(path.join(cwd, '.geekagent', file), JSON.stringify(data, null, 2));
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 文件夹信任`, () => {
        test('克隆来的仓库把根目录设到外面、放行 run_shell：先问一次；管道里答 n 只用安全的设置（deny 照常），不记下；' +
            '设置一变再问，答 y 才生效并记住（经符号链接进来也认得）', async () => {
            const outside = workdir({ 'secret.txt': 'OUTSIDE-SECRET' });
            const cwd = workdir();
            const home = workdir();
            const trustFile = path.join(home, TRUST_FILE);

            // 首次启动写入的默认权限表不会引出信任问题
            const first = await runAgent(stage, { cwd, input: ['你好'], replies: [text('你好')], env: { HOME: home } });
            assert.equal(first.code, 0, first.stderr);
            assert.ok(fs.existsSync(path.join(cwd, '.geekagent', 'GeekAgent.json')));
            assert.doesNotMatch(first.stdout, /信任|\[y\/N\]/);
            assert.ok(!fs.existsSync(trustFile), '没有要信任的设置，不该写信任记录');

            const policies: Record<string, string> = { run_shell: 'allow', write: 'allow', glob: 'deny', read: 'allow' };
            writeConfig(cwd, 'GeekAgent.json', { root: outside, tools: policies });
            const attack = tools(
                call('r', 'read', { path: 'secret.txt' }),
                call('s', 'run_shell', { command: 'echo RAN-$((40+2))' }),
                call('g', 'glob', { pattern: '*' }),
            );
            const declined = await runAgent(stage, { cwd, input: ['n', '看看', 'n'], replies: [attack, text('好')], env: { HOME: home } });
            assert.equal(declined.code, 0, declined.stderr);
            assert.ok(declined.stdout.includes([
                '这个文件夹自己的配置（.geekagent/）要：',
                `  - 把根目录设在文件夹之外：${outside}`,
                '  - 不经询问直接执行：run_shell、write',
                '这些设置以你的用户权限生效：只信任你自己写的或检查过的配置。',
                `信任文件夹 ${cwd} 吗？`,
                '[y/N]',
                'n',
            ].join('\n')), declined.stdout);
            assert.match(declined.stdout, /^未信任此文件夹：.*根目录仍是本文件夹，项目的 allow 规则不生效（deny 规则照常）/m);
            // 根目录仍是本文件夹：外面的文件读不到；run_shell 照默认询问（答 n）；glob 的 deny 照常生效
            assert.match(declined.results.r, /读取失败|不存在|ENOENT/);
            assert.ok(!sent(declined).includes('OUTSIDE-SECRET'));
            assert.match(declined.stdout, /即将执行命令：echo RAN-\$\(\(40\+2\)\)/);
            assert.equal(declined.results.s, '已取消执行');
            assert.equal(declined.results.g, '权限拒绝：不允许使用工具 glob');
            // 管道里的 n 只管这一次：脚本喂进来的一行不该永久关掉这个文件夹的配置（终端里明确答的 n 才记下，见 envtrust-answers）
            assert.match(declined.stdout, /^（管道里的 n 只管这一次：这次按不信任运行，不记下；下次启动还会再问。/m);
            assert.ok(!fs.existsSync(trustFile), '管道里的 n 不该记下');

            // 多放行一个工具：要信任的设置变了，再问一次；这次答 y，根目录和放行都生效
            writeConfig(cwd, 'GeekAgent.json', { root: outside, tools: { ...policies, patch: 'allow' } });
            const trusted = await runAgent(stage, { cwd, input: ['y', '再看看'], replies: [attack, text('好')], env: { HOME: home } });
            assert.equal(trusted.code, 0, trusted.stderr);
            assert.match(trusted.stdout, /不经询问直接执行：run_shell、write、patch\n/);
            assert.equal(count(trusted.stdout, '[y/N]'), 1, '只有信任问题，run_shell 不再询问');
            assert.doesNotMatch(trusted.stdout, /未信任/);
            assert.match(trusted.results.r, /OUTSIDE-SECRET/);
            assert.equal(trusted.results.s, 'RAN-42');
            assert.equal(trusted.results.g, '权限拒绝：不允许使用工具 glob', 'deny 规则信任后也照常');
            const saved = JSON.parse(fs.readFileSync(trustFile, 'utf8'));
            assert.deepEqual(Object.keys(saved), [cwd]);
            assert.equal(saved[cwd].trusted, true);
            assert.match(saved[cwd].fingerprint, /^[0-9a-f]{64}$/);

            // 同一个文件夹经符号链接进来：按真实路径认出来，不再问，仍然信任
            const link = path.join(workdir(), 'clone');
            fs.symlinkSync(cwd, link);
            const again = await runAgent(stage, { cwd: link, input: ['再跑一次'], replies: [tools(call('s', 'run_shell', { command: 'echo AGAIN' })), text('好')], env: { HOME: home } });
            assert.equal(again.code, 0, again.stderr);
            assert.doesNotMatch(again.stdout, /\[y\/N\]/);
            assert.doesNotMatch(again.stdout, /未信任/);
            assert.equal(again.results.s, 'AGAIN');
        });

        test('信任记录文件坏了：原样保留不覆盖，照样询问（这次答 y 只管这一次），并说明记不住', async () => {
            const cwd = workdir();
            writeConfig(cwd, 'GeekAgent.json', { root: '..', tools: { run_shell: 'allow' } });
            const home = workdir({ [TRUST_FILE]: '{ 坏掉的 JSON' });
            const r = await runAgent(stage, { cwd, input: ['y', '跑一下'], replies: [tools(call('s', 'run_shell', { command: 'echo ok' })), text('好')], env: { HOME: home } });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stderr, /信任记录 .*trusted-folders\.json 已损坏，原样保留；这次的回答不会被记住/);
            assert.match(r.stdout, /信任文件夹 .* 吗？\n\[y\/N\]\ny\n/);
            assert.equal(r.results.s, 'ok');
            assert.equal(fs.readFileSync(path.join(home, TRUST_FILE), 'utf8'), '{ 坏掉的 JSON');
        });
    });

    describe(`${stage}: stdin 是管道、却是人在打字（编辑器、IDE 的控制台）`, () => {
        test('信任问题在等回答之前就显示出来；看到问题再答 y：信任生效（第一行是回答的规则照旧）', async () => {
            const fake = await startFakeOpenAI({ replies: [tools(call('s', 'run_shell', { command: 'echo TYPED' })), text('好')] });
            try {
                const cwd = workdir();
                writeConfig(cwd, 'GeekAgent.json', { root: '..', tools: { run_shell: 'allow' } });
                // 一行也不先写：像人那样，看到问题才回答
                const run = startStage(stage, { cwd, input: [], holdStdin: true, env: { OPENAI_BASE_URL: fake.url } });
                await waitUntil('信任问题显示出来', () => /信任文件夹 .* 吗？\n\[y\/N\]\n/.test(run.stdout()), run.stdout);
                run.write('y');
                run.write('跑一下');
                run.end();
                const r = await run.done;
                assertNoRejections(fake);
                assert.equal(r.code, 0, r.stderr);
                assert.match(r.stdout, /信任文件夹 .* 吗？\n\[y\/N\]\ny\n/);
                assert.doesNotMatch(r.stdout, /未信任/);
                assert.equal(count(r.stdout, '[y/N]'), 1, '只问了一次');
                assert.equal(toolResults(...fake.requests.map((q) => q.body)).s, 'TYPED', '信任后 run_shell 不经询问执行');
            } finally {
                await fake.close();
            }
        });
    });

    describe(`${stage}: deny 优先，其次最具体的用户规则，再次内置默认`, () => {
        test('"*": "deny" 连默认放行、显式放行的工具也拒绝；"run_*": "deny" 胜过 run_shell 的 ask；' +
            '"*": "ask" 胜过内置默认，精确名胜过 "*"', async () => {
            const cwd = workdir({ 'note.txt': 'NOTE-BODY' });
            const home = workdir();
            // 这些工具默认都是 allow；把它们写成 allow 不需要信任
            const names = ['read', 'ls', 'glob', 'get_current_time', 'memory_write', 'search'];
            const args: Record<string, object> = { read: { path: 'note.txt' }, glob: { pattern: '*' } };
            writeConfig(cwd, 'GeekAgent.json', { root: '..', tools: { ...Object.fromEntries(names.map((n) => [n, 'allow'])), '*': 'deny' } });
            // 后面排着 y：如果真的弹出了确认，y 会同意执行，测试就能发现
            const all = await runAgent(stage, { cwd, input: ['全都试试', 'y', 'y', 'y', 'y'], replies: [
                tools(...names.map((n) => call(n, n, args[n] ?? {})), call('run_shell', 'run_shell', { command: 'echo RAN' })),
                text('都被拒绝了'),
                text('嗯'), text('嗯'), text('嗯'), text('嗯'),
            ], env: { HOME: home } });
            assert.equal(all.code, 0, all.stderr);
            for (const n of [...names, 'run_shell']) assert.equal(all.results[n], `权限拒绝：不允许使用工具 ${n}`, n);
            assert.doesNotMatch(all.stdout, /\[y\/N\]/);
            assert.ok(!sent(all).includes('NOTE-BODY'));

            writeConfig(cwd, 'GeekAgent.json', { root: '..', tools: { '*': 'ask', read: 'allow', 'run_*': 'deny', run_shell: 'ask' } });
            const mixed = await runAgent(stage, { cwd, input: ['再试试', 'y', '下一句'], replies: [
                tools(
                    call('read', 'read', { path: 'note.txt' }),
                    call('ls', 'ls', {}),
                    call('run_shell', 'run_shell', { command: 'echo RAN' }),
                ),
                text('好'),
                text('嗯'),
            ], env: { HOME: home } });
            assert.equal(mixed.code, 0, mixed.stderr);
            assert.match(mixed.results.read, /NOTE-BODY/, '精确名 read: allow 胜过 "*": "ask"');
            assert.match(mixed.stdout, /工具 ls 请求执行\n\[y\/N\] y\n/, '"*": "ask" 胜过 ls 的内置默认 allow');
            assert.match(mixed.results.ls, /note\.txt/);
            assert.equal(mixed.results.run_shell, '权限拒绝：不允许使用工具 run_shell');
            assert.doesNotMatch(mixed.stdout, /即将执行命令/);
            assert.equal(count(mixed.stdout, '[y/N]'), 1);
        });
    });
}

for (const stage of HARDENED_ONLY) {
    const DEMO = path.join(REPO_ROOT, stage, 'demo-server.mjs');

    describe(`${stage}: 项目的 MCP 服务器要先信任`, () => {
        test('教程自带的 mcp.json 加一台会留下标记的服务器：答 n 一台也不启动（重连也不行），/mcp 说明原因；' +
            '答 y 才启动，"mcp_e_*": "deny" 胜过 "mcp_e_dice": "allow"', async () => {
            const cwd = workdir();
            const tutorial = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, '.geekagent', 'mcp.json'), 'utf8'));
            // e：启动时先在工作目录留下 STARTED，再换成演示服务器
            const e = { command: 'sh', args: ['-c', `touch STARTED; exec node '${DEMO}'`], env: { DEMO_NOTE: 'hi' } };
            writeConfig(cwd, 'mcp.json', { mcpServers: { ...tutorial.mcpServers, e } });
            writeConfig(cwd, 'GeekAgent.json', { root: '..', tools: { 'mcp_e_*': 'deny', mcp_e_dice: 'allow' } });

            const declined = await runAgent(stage, { cwd, input: ['n', '/mcp', '/mcp reconnect e'], env: { HOME: workdir() } });
            assert.equal(declined.code, 0, declined.stderr);
            assert.ok(declined.stdout.includes([
                '这个文件夹自己的配置（.geekagent/）要：',
                '  - 启动 MCP 服务器 demo：node day15/demo-server.mjs',
                `  - 启动 MCP 服务器 e：sh -c "touch STARTED; exec node '${DEMO}'"（环境变量 DEMO_NOTE=hi）`,
                '  - 不经询问直接执行：mcp_e_dice',
            ].join('\n')), declined.stdout);
            assert.match(declined.stdout, /^未信任此文件夹：项目的 MCP 服务器不启动，/m);
            assert.match(declined.stdout, /^未信任此文件夹，项目的 MCP 服务器不启动（.*）：demo、e$/m);
            assert.match(declined.stderr, /未信任此文件夹，项目的 MCP 服务器不启动/, '/mcp reconnect 也被拒绝');
            assert.doesNotMatch(declined.stderr, /\[mcp:/, '不该有任何服务器输出');
            assert.ok(!fs.existsSync(path.join(cwd, 'STARTED')), '不信任时服务器不该启动');

            const trusted = await runAgent(stage, { cwd, input: ['y', MCP_READY, '掷骰子', 'y', 'y'], replies: [
                tools(call('dice', 'mcp_e_dice'), call('wc', 'mcp_e_word_count', { text: 'a b' })),
                text('都被拒绝了'),
                text('嗯'), text('嗯'),
            ], env: { HOME: workdir() } });
            assert.equal(trusted.code, 0, trusted.stderr);
            assert.ok(fs.existsSync(path.join(cwd, 'STARTED')));
            assert.equal(trusted.results.dice, '权限拒绝：不允许使用工具 mcp_e_dice');
            assert.equal(trusted.results.wc, '权限拒绝：不允许使用工具 mcp_e_word_count');
            assert.equal(count(trusted.stdout, '[y/N]'), 1, '只有信任问题');
        });
    });
}

// 全屏界面（stdin、stdout 都是终端）里，信任问题走的是全屏界面自己的 [y/N] 确认
describe('全屏界面里的信任问题', { skip: noTmux }, () => {
    for (const stage of HARDENED_ONLY) {
        test(`${stage}：问题列出要放行的工具，输入行变成 [y/N]；答 y 之后 run_shell 不再询问，回答记进 HOME`, async () => {
            const cwd = workdir();
            const home = workdir();
            writeConfig(cwd, 'GeekAgent.json', { root: '..', tools: { run_shell: 'allow' } });
            const fake = await startFakeOpenAI({
                replies: [tools(call('s', 'run_shell', { command: 'echo FULLSCREEN > ran.txt' })), text('跑完了')],
            });
            const term = new Terminal(stage, { cols: 160, rows: 30, cwd, env: { HOME: home, OPENAI_BASE_URL: fake.url } });
            try {
                const question = await term.shows('[y/N]');
                assert.match(question, /不经询问直接执行：run_shell/);
                assert.match(question, /信任文件夹 .* 吗？/);
                await term.answer('y');
                await term.shows('吗？ → y');
                term.enter('跑一下');
                assert.doesNotMatch(await term.shows('跑完了'), /即将执行命令/);
                assert.equal(fs.readFileSync(path.join(cwd, 'ran.txt'), 'utf8'), 'FULLSCREEN\n');
                term.enter('/exit');
                await term.exited();
                const saved = JSON.parse(fs.readFileSync(path.join(home, TRUST_FILE), 'utf8'));
                assert.equal(saved[cwd].trusted, true);
                assertNoRejections(fake);
            } finally {
                term.close();
                await fake.close();
            }
        });
    }
});
