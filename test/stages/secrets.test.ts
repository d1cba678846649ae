// 密钥不从旁门出去：先脱敏整段文字、再分页或截断；环境变量和 .env 里像密钥的值、常见密钥格式都认得出来；
// MCP 服务器不继承像密钥的变量。经真实入口、管道输入、假 OpenAI 服务验证：看模型实际收到了什么。
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import type { RecordedRequest } from '../../scripts/fake-model/server.ts';
import { MCP_READY, runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';
import { leftovers, server } from '../mcp/util.ts';

// 名字像密钥、但值本身看不出格式的变量：只能靠名字规则认出来
const ENV = {
    OPENAI_API_KEY: 'sk-test-key-123456',
    GH_PAT: 'Zq8wN3vL5pR7tY2uX9kM4hJ6',
    DATABASE_URL: 'postgres://app:Pg7Secret9Word3x@db.internal/prod',
    MY_SERVICE_PASSWD: 'Wm4Kt8Qz2Vb6Nc0Lx5Rj',
    NPM_AUTH: 'Ht5Gd9Fs3Ak7Pl1Ow2Ie8Uy',
};
// 只在 .env 里：OPENAI_API_KEY 和环境里的不同（环境优先，.env 的值也得认作密钥）
const DOTENV_OPENAI = 'dotenv-openai-Kf83Jd92Lq0Xv';
const DOTENV_AWS = 'Ab3/Cd5+Ef7Gh9Ij1Kl3Mn5Op7Qr9St1Uv3Wx5Yz';
// 只靠格式认出来的（写在普通文件里，不在任何变量里）
const SHAPES = {
    sk: 'sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34',
    ghp: 'ghp_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78',
    akia: 'AKIAIOSFODNN7EXAMPLE',
    aws: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    slack: 'xoxb-123456789012-abcdefghijkl',
    jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXBhcnQtaGVyZQ',
    urlPassword: 'Hx72kPq9Lm3nRt',
    pem: 'MIIEpAIBAAKCAQEAx7Hq2Vb9Lm4Np8Rt3Wz6Yc1Kd5Fg0Js',
};
const SECRETS = [...Object.values(ENV), 'Pg7Secret9Word3x', DOTENV_OPENAI, DOTENV_AWS, ...Object.values(SHAPES)];

/** 任何一个密钥的任意 12 个字符的片段出现在 text 里，就返回这个片段。 */
function leakedPiece(text: string): string | undefined {
    for (const secret of SECRETS) {
        for (let i = 0; i + 12 <= secret.length; i++) if (text.includes(secret.slice(i, i + 12))) return secret.slice(i, i + 12);
    }
    return undefined;
}

/** 启动时的信任问题（「这个文件夹…」到 [y/N]）：它照原样显示 .env 的值、只到你的终端（见 envtrust-values.test.ts），不算外流。 */
function trustQuestion(stdout: string): string {
    return /^这个文件夹[^]*?\[y\/N\]\n/m.exec(stdout)?.[0] ?? '';
}

/** 请求里除了模型自己说的话（assistant 消息里的工具参数是模型给的，原样回传）以外的全部内容。 */
function sentToModel(requests: RecordedRequest[]): string {
    return JSON.stringify(requests.map((q) => ({ ...q.body, messages: q.body.messages.filter((m: any) => m.role !== 'assistant') })));
}

// .env 第一行的值从第 22 个字符开始：offset 23 正好切掉它的第一个字符
const DOTENV = `AWS_SECRET_ACCESS_KEY=${DOTENV_AWS}\nOPENAI_API_KEY=${DOTENV_OPENAI}\n`;
const NOTES = [
    `openai: ${SHAPES.sk}`,
    `github: ${SHAPES.ghp}`,
    `aws_access_key_id = ${SHAPES.akia}`,
    `aws_secret_access_key = ${SHAPES.aws}`,
    `slack: ${SHAPES.slack}`,
    `jwt: ${SHAPES.jwt}`,
    `remote: https://deploy:${SHAPES.urlPassword}@git.example.com/repo.git`,
    'git: 3f786850e387550fdab836ed7e6dc881de23001b',
    '-----BEGIN RSA PRIVATE KEY-----',
    SHAPES.pem,
    '-----END RSA PRIVATE KEY-----',
    '私钥之后的正文',
].join('\n');

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 密钥不从旁门出去`, () => {
        test('read 的 offset 与分页、run_shell 的截断都在脱敏之后：模型收不到任何密钥的 12 个字符', async () => {
            // GH_PAT 跨过 read 的 2000 字符页边界
            const cwd = workdir({ '.env': DOTENV, 'notes.txt': NOTES, 'big.txt': `${'.'.repeat(1990)}${ENV.GH_PAT}\n尾巴\n` });
            // 先答 y：这是你自己的 .env（不信任的文件夹，它的 .env 不是密钥的来源，见 hostile-folder.test.ts）
            const r = await runAgent(stage, { cwd, input: ['y', '读读看', 'y', 'y', '好'], env: ENV, replies: [
                tools(
                    call('env_offset', 'read', { path: '.env', offset: 23 }),
                    call('env_all', 'read', { path: '.env' }),
                    call('page1', 'read', { path: 'big.txt' }),
                    call('page2', 'read', { path: 'big.txt', offset: 2000 }),
                    call('notes', 'read', { path: 'notes.txt' }),
                    // 输出在 2000 个字符处被截断，截断点落在 MY_SERVICE_PASSWD 中间
                    call('sh_cut', 'run_shell', { command: `printf '%1985s' ''; echo "$MY_SERVICE_PASSWD $NPM_AUTH $DATABASE_URL $GH_PAT"; cat .env` }),
                    // stderr 先用掉大半的 8000 字节上限，stdout 里的密钥正好跨过上限
                    call('sh_bytes', 'run_shell', { command: `printf '%7985s' '' >&2; sleep 0.2; echo "$NPM_AUTH"` }),
                ),
                text('都读完了'),
                text('好的'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 3);
            assert.equal(leakedPiece(sentToModel(r.requests)), undefined, '模型收到了密钥的片段');
            const question = trustQuestion(r.stdout);
            assert.ok(question.includes(`环境变量 AWS_SECRET_ACCESS_KEY=${DOTENV_AWS} 交给`), question);
            assert.equal(leakedPiece(r.stdout.replace(question, '') + r.stderr), undefined, '信任问题以外的屏幕上出现了密钥的片段');
            // 结果本身还在：脱敏只换掉密钥
            assert.match(r.results.env_all, /AWS_SECRET_ACCESS_KEY=\[REDACTED:AWS_SECRET_ACCESS_KEY\]\nOPENAI_API_KEY=\[REDACTED:OPENAI_API_KEY\]/);
            assert.match(r.results.page1, /^（文件共 \d+ 个字符，本次读取 0-2000）\n\.{1990}\[REDACT/);
            assert.match(r.results.notes, /https:\/\/deploy:\[REDACTED\]@git\.example\.com/);
            assert.match(r.results.notes, /git: 3f786850e387550fdab836ed7e6dc881de23001b/, 'git 哈希不是密钥');
            assert.match(r.results.notes, /\[REDACTED\]\n私钥之后的正文/);
            assert.match(r.results.sh_cut, /^ {1985}\[REDACT/);
            assert.match(r.results.sh_bytes, /^命令失败（输出超过 8000 字节）/);
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 知识库、fetch、MCP 里的密钥`, () => {
        test('知识块、网页、MCP 结果先脱敏再切，确认提示显示参数原文并说出其中的密钥；MCP 服务器不继承像密钥的变量', async () => {
            const mark = randomUUID();
            const page = `${'网页正文 '.repeat(397)}${ENV.MY_SERVICE_PASSWD} ${SHAPES.jwt}`;   // 密钥跨过 2000 个字符
            const web = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end(page));
            await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
            const url = `http://127.0.0.1:${(web.address() as AddressInfo).port}/page.txt`;
            const env = { GEEKAGENT_TEST_MARK: mark };
            const servers = {
                envdump: { command: 'node', args: [server('env-dump.mjs')], env },
                // 配置里显式传的变量服务器能看到；结果交给模型之前照样脱敏
                echo: { command: 'node', args: [server('secret-echo.mjs')], env: { ...env, ECHO_VALUE: '${GH_PAT}', ECHO_PAD: '19985' } },
            };
            const cwd = workdir({
                '.env': DOTENV,
                'doc.md': `${'lorem ipsum '.repeat(66)}口令 ${ENV.NPM_AUTH} 在这里\n${NOTES}\n`,
                '.geekagent/mcp.json': JSON.stringify({ mcpServers: servers }),
            });
            try {
                // 第一行回答文件夹信任问题（mcp.json 会启动服务器）
                const r = await runAgent(stage, { cwd, input: ['y', MCP_READY, '收录、抓取、调用', 'y', 'y', 'y', 'y', 'y', '好'], env: ENV, replies: [
                    tools(
                        call('rag_add', 'rag_add', { source: 'doc.md' }),
                        call('rag_search', 'rag_search', { query: '口令 在这里' }),
                        call('fetch', 'fetch', { url }),
                        call('dump', 'mcp_envdump_env', {}),
                        call('echo', 'mcp_echo_echo', {}),
                        // 确认提示显示参数的原文（只给终端前的用户看，说出其中有几处是密钥）；模型只收到脱敏后的结果
                        call('args', 'mcp_echo_echo', { note: `${'x'.repeat(192)}${SHAPES.urlPassword}`, url: ENV.DATABASE_URL }),
                    ),
                    text('都做完了'),
                    text('好的'),
                ] });
                assert.equal(r.code, 0, r.stderr);
                assert.equal(leakedPiece(sentToModel(r.requests)), undefined, '模型收到了密钥的片段');
                const prompt = /即将调用 MCP 工具：mcp_echo_echo（来自服务器 echo）\n参数：\n {2}note：[^]*?\n(?=\[y\/N\])/.exec(r.stdout)?.[0] ?? '';
                assert.ok(prompt.includes(`\n  note："${'x'.repeat(192)}${SHAPES.urlPassword}"\n  url："${ENV.DATABASE_URL}"\n确认执行？\n`), prompt);
                assert.ok(prompt.endsWith('\n（上面显示的是原文，其中 1 处是你的密钥 DATABASE_URL）\n'), prompt);
                const question = trustQuestion(r.stdout);
                assert.ok(question.includes('ECHO_VALUE=‹GH_PAT›'), question);
                assert.equal(leakedPiece(r.stdout.replace(prompt, '').replace(question, '') + r.stderr), undefined, '确认提示、信任问题以外的屏幕上出现了密钥的片段');
                const index = fs.readFileSync(path.join(cwd, '.geekagent', 'rag', 'index.json'), 'utf8');
                assert.equal(leakedPiece(index), undefined, '知识库文件里存了密钥');
                assert.match(r.results.rag_search, /\[REDACTED:NPM_AUTH\]/);
                assert.match(r.results.fetch, /网页正文/);
                assert.match(r.results.echo, /^\.{19985}\[REDACT/);
                const dump = JSON.parse(r.results.dump);
                assert.equal(dump.env.GEEKAGENT_TEST_MARK, mark, '应该是 env-dump 的真实输出');
                for (const name of [...Object.keys(ENV), 'AWS_SECRET_ACCESS_KEY']) assert.equal(dump.env[name], undefined, `服务器继承了 ${name}`);
            } finally {
                web.closeAllConnections();
                await new Promise<void>((resolve) => web.close(() => resolve()));
            }
            assert.deepEqual(leftovers('', mark), [], '退出后还有 MCP 服务器进程');
        });
    });
}
