// 信任问题照原样显示它问的值：克隆来的 .env（和 Day 15 mcp.json 的 env）里会让程序运行别的代码的变量，值一字不藏，
// 下面多一行说它做什么；唯一的替换是你自己的密钥（真实环境里的）那一段显示成 ‹名字›。问题只到 stdout。
// 信任记录是原值的 HMAC（密钥在 ~/.geekagent/trust-key，0600）：任何一个值变了都再问，记录里没有值。
// 经真实入口、管道输入（和 tmux 里的全屏界面）、假模型验证。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { text } from '../../scripts/fake-model/replies.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY, REPO_ROOT } from '../helpers/run-stage.ts';
import { noTmux, Terminal } from '../helpers/terminal.ts';
import { workdir } from '../helpers/workdir.ts';

const KEY = 'sk-test-key-123456';   // run-stage.ts 放进真实环境的 OPENAI_API_KEY
const HOOK = '--require ./.hooks/h.cjs --title=sk-live-0123456789abcdef0123';
const VARS: [string, string][] = [
    ['NODE_OPTIONS', HOOK],
    ['GIT_CONFIG_COUNT', '1'],
    ['GIT_CONFIG_KEY_0', 'core.fsmonitor'],
    ['GIT_CONFIG_VALUE_0', 'touch FSMONITOR-RAN'],
    ['GIT_SSH_COMMAND', 'ssh://u:$(touch x)@h'],
    ['NPM_TOKEN', './.hooks/h.cjs'],          // 克隆来的 .env 自己的「密钥」：NODE_OPTIONS 里同样的一段不能因此藏起来
    ['MINE', `prefix-${KEY}-suffix`],        // 你自己的密钥夹在值中间：只换那一段
    ['BIDI', 'a\u202eb'],                    // 双向控制符显示成转义
];
const RUNS = ['NODE_OPTIONS', 'GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_CONFIG_VALUE_0', 'GIT_SSH_COMMAND'];
const dotEnv = (vars: [string, string][]) => vars.map(([k, v]) => `${k}='${v}'\n`).join('');
const TRUST_FILE = path.join('.geekagent', 'trusted-folders.json');
const KEY_FILE = path.join('.geekagent', 'trust-key');
const RUNS_LINE = (name: string) => new RegExp(`^ {4}${name} 会让程序运行别的代码：\\S`, 'm');

/** 一个目录下所有文件的内容连在一起（看值有没有被写到哪里）。 */
function filesUnder(dir: string): string {
    if (!fs.existsSync(dir)) return '';
    return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .map((f) => path.join(dir, f))
        .filter((f) => fs.statSync(f).isFile())
        .map((f) => fs.readFileSync(f, 'utf8'))
        .join('\n');
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 信任问题照原样显示 .env 的值`, () => {
        test('NODE_OPTIONS、GIT_CONFIG_KEY_0、GIT_SSH_COMMAND 的值原样显示并多一行「会让程序运行别的代码」；你的密钥显示成 ‹OPENAI_API_KEY›；' +
            '问题不进追踪、请求和任何文件；记录里没有值，密钥文件 0600', async () => {
            const cwd = workdir({ '.env': dotEnv(VARS) });
            const home = workdir();
            const r = await runAgent(stage, { cwd, input: ['y', '你好'], replies: [text('好')], env: { HOME: home, GEEKAGENT_TRACE: 'llm' } });
            assert.equal(r.code, 0, r.stderr);
            const shown = (line: string) => assert.ok(r.stdout.includes(`  - 环境变量 ${line} 交给 Agent 启动的每个程序（命令、MCP 服务器……）\n`), `${line}\n${r.stdout}`);
            shown(`"NODE_OPTIONS=${HOOK}"`);
            shown('GIT_CONFIG_KEY_0=core.fsmonitor');
            shown('"GIT_CONFIG_VALUE_0=touch FSMONITOR-RAN"');
            shown('"GIT_SSH_COMMAND=ssh://u:$(touch x)@h"');
            shown('NPM_TOKEN=./.hooks/h.cjs');
            shown('MINE=prefix-‹OPENAI_API_KEY›-suffix');
            shown('"BIDI=a\\u202eb"');
            for (const name of RUNS) assert.match(r.stdout, RUNS_LINE(name), name);
            for (const name of ['NPM_TOKEN', 'MINE', 'BIDI']) assert.doesNotMatch(r.stdout, RUNS_LINE(name), name);
            assert.doesNotMatch(r.stdout, /REDACTED/);
            assert.ok(!r.stdout.includes(KEY), '你自己的密钥显示成了名字');

            // 问题只到 stdout：不在 stderr、发给模型的请求、追踪日志和 Agent 写的任何文件里
            assert.ok(fs.existsSync(path.join(cwd, '.geekagent', 'trace.log')), '追踪开着');
            const elsewhere = [r.stderr, JSON.stringify(r.requests.map((q) => q.body)), filesUnder(path.join(cwd, '.geekagent')), filesUnder(path.join(home, '.geekagent'))].join('\n');
            for (const value of ['h.cjs', 'core.fsmonitor', 'FSMONITOR-RAN', 'touch x', '会让程序运行别的代码']) assert.ok(!elsewhere.includes(value), value);

            // 记录：文件夹 → HMAC 指纹，没有值；密钥文件只有自己能读写
            const record = JSON.parse(fs.readFileSync(path.join(home, TRUST_FILE), 'utf8'));
            assert.deepEqual(Object.keys(record[cwd]).sort(), ['fingerprint', 'trusted', 'trustedBefore']);
            assert.match(record[cwd].fingerprint, /^[0-9a-f]{64}$/);
            assert.equal(fs.statSync(path.join(home, KEY_FILE)).mode & 0o777, 0o600);
            assert.match(fs.readFileSync(path.join(home, KEY_FILE), 'utf8'), /^[0-9a-f]{64}\n$/);
        });

        test('信任之后改了任何一个值（哪怕只是 --require 的文件、$(…) 里的命令）：再问一次；换了主目录里的密钥也再问（指纹是 HMAC）', async () => {
            const cwd = workdir();
            const home = workdir();
            const run = (vars: [string, string][], input: string[]) => {
                fs.writeFileSync(path.join(cwd, '.env'), dotEnv(vars));
                return runAgent(stage, { cwd, input, env: { HOME: home } });
            };
            const asked = (r: { stdout: string }) => r.stdout.includes('[y/N]');
            const base = VARS.slice(0, 5);
            const trusted = await run(base, ['y']);
            assert.ok(asked(trusted), trusted.stdout);
            assert.ok(!asked(await run(base, [])), '没变：不再问');

            const changes: [string, string][] = [
                ['NODE_OPTIONS', HOOK.replace('h.cjs', 'other.cjs')],
                ['NODE_OPTIONS', HOOK.replace('0123456789', '9876543210')],   // 只改了像密钥的那一段
                ['GIT_CONFIG_VALUE_0', 'touch SOMETHING-ELSE'],
                ['GIT_SSH_COMMAND', 'ssh://u:$(rm -rf x)@h'],
            ];
            for (const [name, value] of changes) {
                const r = await run(base.map(([k, v]) => [k, k === name ? value : v]), []);
                assert.ok(asked(r), `${name}=${value} 变了却没有再问\n${r.stdout}`);
                assert.match(r.stdout, /（没有回答：输入已经结束。/);
            }
            assert.ok(!asked(await run(base, [])), '改回信任过的值：不再问');

            fs.writeFileSync(path.join(home, KEY_FILE), `${'ab'.repeat(32)}\n`);
            assert.ok(asked(await run(base, [])), '换了密钥，旧指纹对不上：再问');
        });
    });
}

for (const stage of HARDENED_ONLY) {
    const DEMO = path.join(REPO_ROOT, stage, 'demo-server.mjs');

    describe(`${stage}: 信任问题照原样显示 MCP 服务器的 env`, () => {
        test('mcp.json 的 env 里 NODE_OPTIONS、GIT_SSH_COMMAND 原样显示并各多一行说明；${OPENAI_API_KEY} 显示成 ‹OPENAI_API_KEY›；改了值再问', async () => {
            const cwd = workdir();
            const home = workdir();
            const write = (env: Record<string, string>) => {
                fs.mkdirSync(path.join(cwd, '.geekagent'), { recursive: true });
                fs.writeFileSync(path.join(cwd, '.geekagent', 'mcp.json'), JSON.stringify({ mcpServers: { e: { command: 'node', args: [DEMO], env } } }));
            };
            const env = { NODE_OPTIONS: HOOK, GIT_SSH_COMMAND: 'ssh://u:$(touch x)@h', API_TOKEN: '${OPENAI_API_KEY}' };
            write(env);
            const r = await runAgent(stage, { cwd, input: ['n'], env: { HOME: home } });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(r.stdout.includes([
                `  - 启动 MCP 服务器 e：node ${DEMO}（环境变量 "NODE_OPTIONS=${HOOK}" "GIT_SSH_COMMAND=ssh://u:$(touch x)@h" API_TOKEN=‹OPENAI_API_KEY›）`,
                '    NODE_OPTIONS 会让程序运行别的代码：',
            ].join('\n')), r.stdout);
            assert.match(r.stdout, RUNS_LINE('GIT_SSH_COMMAND'));
            assert.doesNotMatch(r.stdout, RUNS_LINE('API_TOKEN'));
            assert.ok(!r.stdout.includes(KEY));

            const trusted = await runAgent(stage, { cwd, input: ['y'], env: { HOME: home } });
            assert.equal(trusted.code, 0, trusted.stderr);
            assert.ok(!(await runAgent(stage, { cwd, input: [], env: { HOME: home } })).stdout.includes('[y/N]'), '没变：不再问');
            write({ ...env, NODE_OPTIONS: HOOK.replace('0123456789', '9876543210') });
            const changed = await runAgent(stage, { cwd, input: [], env: { HOME: home } });
            assert.match(changed.stdout, /9876543210[^]*\[y\/N\]/, 'env 的值变了：再问');
        });
    });
}

// 全屏界面里是同一个问题：值原样、多一行说明（不回答，看完就关掉）
describe('全屏界面里的信任问题照原样显示 .env 的值', { skip: noTmux }, () => {
    for (const stage of HARDENED_ONLY) {
        test(`${stage}：NODE_OPTIONS 的值和「会让程序运行别的代码」一行都在屏幕上`, async () => {
            const cwd = workdir({ '.env': dotEnv([VARS[0], ['MINE', `prefix-${KEY}-suffix`]]) });
            const term = new Terminal(stage, { cols: 200, rows: 40, cwd });
            try {
                const screen = await term.shows('[y/N]');
                assert.ok(screen.includes(`环境变量 "NODE_OPTIONS=${HOOK}" 交给`), screen);
                assert.match(screen, /NODE_OPTIONS 会让程序运行别的代码：/);
                assert.ok(screen.includes('MINE=prefix-‹OPENAI_API_KEY›-suffix'), screen);
            } finally {
                term.close();
            }
        });
    }
});
