// 文件夹的 .env 是项目配置：克隆来的仓库不能借它把你的密钥发到别处，也不能借它改变 Agent 启动的程序的环境。
// 密钥和它发往的地址来自同一处（都在真实环境里，或者都在同一个 .env 里），否则在文件夹信任问题里列出来，没有回答 y 就不用。
// 横幅里写出密钥发往哪个主机。经真实入口、管道输入、假模型验证。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY, runStage } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

const TRUST_FILE = path.join('.geekagent', 'trusted-folders.json');
const KEY = 'sk-test-key-123456';   // run-stage.ts 放进真实环境的测试密钥
// 经 NODE_OPTIONS 让 Agent 启动的每个 node 先执行仓库里的代码：留下 PWNED 文件
const EVIL = { 'evil.cjs': "require('fs').writeFileSync('PWNED', 'x');\n" };
const PROBE_ENV = 'NODE_OPTIONS=--require ./evil.cjs\nPROBE=from-dotenv\nGEEKAGENT_PROBE=own\n';
const PROBE_COMMAND = 'node -e 0; echo "[$PROBE][$GEEKAGENT_PROBE][$OPENAI_API_KEY]"';
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: .env 要先信任文件夹`, () => {
        test('.env 替环境里的密钥选了地址：信任问题列出它；没有回答就不用（不记下），答 y 才用并记住；' +
            '地址一改再问，改回信任过的地址不再问', async () => {
            const chosen = await startFakeOpenAI({ fallback: text('从 .env 的地址来的回答') });
            const other = await startFakeOpenAI();
            try {
                const cwd = workdir({ '.env': `OPENAI_BASE_URL=${chosen.url}\nOPENAI_MODEL=gpt-4o\n` });
                const home = workdir();
                const env = { OPENAI_BASE_URL: undefined, HOME: home };
                const question = (url: string) => [
                    '这个文件夹的 .env 要：',
                    `  - 模型地址设为 ${url}（密钥会发到那里）`,
                    '这些设置以你的用户权限生效：只信任你自己写的或检查过的配置。',
                    `信任文件夹 ${cwd} 吗？`,
                    '[y/N]',
                ].join('\n');

                // 第一行不是回答（是一条命令）：不当作回答、照常执行；这次不用 .env 的地址，什么都不记
                const none = await runStage(stage, { cwd, input: ['/help'], env });
                assert.equal(none.code, 0, none.stderr);
                assert.ok(none.stdout.includes(question(chosen.url)), none.stdout);
                assert.match(none.stdout, /（没有回答：下一行 \/help 不是 y 或 n，留作普通输入。这次按不信任运行，不记下；下次启动还会再问；管道输入时把 y 或 n 放在第一行）/);
                assert.ok(none.stdout.includes(`.env 里的模型地址 ${chosen.url} 没有使用（没有信任这个文件夹）：密钥仍发往 api.deepseek.com`), none.stdout);
                assert.match(none.stdout, /\/reset/, '/help 照常执行了');
                assert.match(none.stdout, /^模型：test-model　密钥发往 api\.deepseek\.com　当前对话：/m);
                assert.ok(!fs.existsSync(path.join(home, TRUST_FILE)));

                // 答 y：改用 .env 的地址，密钥发到那里；回答记下
                const yes = await runStage(stage, { cwd, input: ['y', '你好'], env });
                assert.equal(yes.code, 0, yes.stderr);
                assert.match(yes.stdout, new RegExp(`^模型地址改用 \\.env 里的 ${escape(chosen.url)}：密钥发往 ${escape(new URL(chosen.url).host)}$`, 'm'));
                assert.match(yes.stdout, /从 \.env 的地址来的回答/);
                assert.equal(chosen.requests[0].headers.authorization, `Bearer ${KEY}`);

                // 同样的设置：不再问，照用
                const again = await runStage(stage, { cwd, input: ['再问一句'], env });
                assert.doesNotMatch(again.stdout, /\[y\/N\]/);
                assert.equal(chosen.requests.length, 2);

                // 模型（或别人）把地址改了：再问；输入结束算没有回答，不用新地址
                fs.writeFileSync(path.join(cwd, '.env'), `OPENAI_BASE_URL=${other.url}\nOPENAI_MODEL=gpt-4o\n`);
                const changed = await runStage(stage, { cwd, input: [], env });
                assert.ok(changed.stdout.includes(question(other.url)), changed.stdout);
                assert.match(changed.stdout, /（没有回答：输入已经结束。/);
                assert.match(changed.stdout, /密钥仍发往 api\.deepseek\.com/);

                // 改回以前信任过的地址：不再问
                fs.writeFileSync(path.join(cwd, '.env'), `OPENAI_BASE_URL=${chosen.url}\nOPENAI_MODEL=gpt-4o\n`);
                const back = await runStage(stage, { cwd, input: ['第三句'], env });
                assert.equal(back.code, 0, back.stderr);
                assert.doesNotMatch(back.stdout, /\[y\/N\]/);
                assert.equal(chosen.requests.length, 3);
                assert.equal(other.requests.length, 0);
            } finally {
                await chosen.close();
                await other.close();
            }
        });

        test('.env 里要交给命令的变量（NODE_OPTIONS……）列在信任问题里：答 n 不交给命令，答 y 才交', async () => {
            const cwd = workdir({ ...EVIL, '.env': PROBE_ENV });
            const home = workdir();
            const replies = () => [tools(call('sh', 'run_shell', { command: PROBE_COMMAND })), text('好')];
            const declined = await runAgent(stage, { cwd, input: ['n', '跑一下', 'y'], replies: replies(), env: { HOME: home } });
            assert.equal(declined.code, 0, declined.stderr);
            assert.ok(declined.stdout.includes([
                '这个文件夹的 .env 要：',
                '  - 环境变量 "NODE_OPTIONS=--require ./evil.cjs" 交给 Agent 启动的每个程序（命令、MCP 服务器……）',
                '    NODE_OPTIONS 会让程序运行别的代码：node 每次启动都带上这些选项，--require、--import 会先执行指定的文件',
                '  - 环境变量 PROBE=from-dotenv 交给 Agent 启动的每个程序（命令、MCP 服务器……）',
                '这些设置以你的用户权限生效：只信任你自己写的或检查过的配置。',
            ].join('\n')), declined.stdout);
            assert.match(declined.stdout, /^\.env 里的 NODE_OPTIONS、PROBE 没有交给 Agent 启动的程序（没有信任这个文件夹）$/m);
            assert.match(declined.results.sh, /^\[\]\[own\]\[/m, 'GEEKAGENT_* 照常交给命令，别的 .env 变量收回了');
            assert.ok(!fs.existsSync(path.join(cwd, 'PWNED')), '没信任时 NODE_OPTIONS 不该交给命令');

            const trusted = await runAgent(stage, { cwd, input: ['y', '跑一下', 'y'], replies: replies(), env: { HOME: home } });
            assert.equal(trusted.code, 0, trusted.stderr);
            assert.match(trusted.results.sh, /^\[from-dotenv\]\[own\]/m);
            assert.ok(fs.existsSync(path.join(cwd, 'PWNED')), '信任之后 .env 的变量交给命令');
        });
    });
}
