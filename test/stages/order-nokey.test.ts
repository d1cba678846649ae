// 没有 OPENAI_API_KEY：Agent 照常启动，横幅说缺少密钥、怎么补上、没有密钥能做什么；命令照常可用。
// 要请求模型的一轮失败，给出同样的提示，撤销这一轮，什么也不发出去。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';

const HINT = '缺少 OPENAI_API_KEY';
const count = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 没有密钥也能启动，命令照常可用`, () => {
        test('横幅说缺少密钥；/help 照常回答；对话的一轮报同样的提示、撤销、不发请求；退出码 0', async () => {
            const input = ['/help', 'hi', '/save', '/help'];
            const r = await runAgent(stage, { input, env: { OPENAI_API_KEY: undefined } });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 0, '没有密钥时不该发出任何请求');
            // 启动时说一次，这一轮再说一次
            assert.equal(count(r.stderr, HINT), 2, r.stderr);
            assert.match(r.stderr, /请求失败：缺少 OPENAI_API_KEY：请把 \.env\.example 复制为 \.env 并填上 OPENAI_API_KEY=/);
            assert.match(r.stderr, new RegExp(`npm run demo -- ${stage}`));
            assert.match(r.stderr, /npm run model/);
            assert.equal(count(r.stdout, 'You › /help\n/help'), 2, '两次 /help 都该回答');
            assert.match(r.stdout, /bye/);
            // 撤销了：存下的对话里没有这一轮
            const saved = JSON.parse(fs.readFileSync(path.join(r.cwd, '.geekagent', 'sessions.json'), 'utf8'));
            assert.deepEqual(saved.sessions.default, []);
        });
    });
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 没有密钥时 MCP、知识库的命令和协议追踪照常`, () => {
        test('GEEKAGENT_TRACE=mcp 启动；/rag、/mcp 照常回答', async () => {
            const r = await runAgent(stage, { input: ['/rag', '/mcp'], env: { OPENAI_API_KEY: undefined, GEEKAGENT_TRACE: 'mcp' } });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stderr, new RegExp(HINT));
            assert.match(r.stdout, /协议追踪已开启（mcp）/);
            assert.match(r.stdout, /You › \/rag\n知识库是空的/);
            assert.match(r.stdout, /You › \/mcp\n（没有已连接的 MCP 服务器/);
            assert.equal(r.requests.length, 0);
        });
    });
}
