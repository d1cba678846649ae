// Day 15 的真实服务器规模：回放六台常用 npm MCP 服务器录下来的工具列表（test/fixtures/mcp-tools），
// 经真实入口、严格的假 OpenAI 服务检查：一次请求不超过 128 个工具、装不下时提示一次、
// includeTools / excludeTools、每个录下来的模式都被接受、/mcp 显示每台服务器的开销。
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { FakeReply } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';
import { assertNoRejections } from '../helpers/fixtures.ts';
import { HARDENED_ONLY, REPO_ROOT, runStage } from '../helpers/run-stage.ts';
import { leftovers, server, tempDir } from '../mcp/util.ts';

const MARK = randomUUID();
const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'mcp-tools');
const recorded = (file: string): any[] => JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8'));

// mcp.json 里的服务器名 → 录下来的文件；Azure 按它 README 的写法用带空格的名字
const FILES: Record<string, string> = {
    playwright: 'playwright.json',
    notionApi: 'notionApi.json',
    'desktop-commander': 'desktop-commander.json',
    github: 'github.json',
    'Azure MCP Server': 'Azure_MCP_Server.json',
    context7: 'context7.json',
};
const FIVE = ['playwright', 'notionApi', 'desktop-commander', 'github', 'Azure MCP Server'];
const COST_LINE = /^ {2}每次请求约 [\d,]+ 字符（≈[\d,]+ token）$/gm;

const replay = (name: string, extra: object = {}) => ({
    command: 'node',
    args: [server('replay.mjs')],
    env: { GEEKAGENT_TEST_MARK: MARK, REPLAY_FILE: path.join(FIXTURES, FILES[name]) },
    ...extra,
});

function workdir(servers: Record<string, unknown>): string {
    const cwd = fs.realpathSync(tempDir('geekagent-mcp-scale-'));
    fs.mkdirSync(path.join(cwd, '.geekagent'));
    fs.writeFileSync(path.join(cwd, '.geekagent', 'mcp.json'), JSON.stringify({ mcpServers: servers }, null, 2));
    return cwd;
}

const mcpNames = (body: any): string[] => body.tools.map((t: any) => t.function.name).filter((n: string) => n.startsWith('mcp_'));
const count = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

for (const stage of HARDENED_ONLY) {
    async function run(servers: Record<string, unknown>, input: string[], replies: FakeReply[]) {
        const fake = await startFakeOpenAI({ replies });
        try {
            // 第一行回答文件夹信任问题（mcp.json 会启动服务器）
            const r = await runStage(stage, { input: ['y', ...input], cwd: workdir(servers), env: { OPENAI_BASE_URL: fake.url } });
            assertNoRejections(fake);
            assert.deepEqual(leftovers('', MARK), [], '退出后还有 MCP 服务器进程');
            return { ...r, requests: fake.requests };
        } finally {
            await fake.close();
        }
    }

    describe(`${stage}: 真实 MCP 服务器的工具列表`, () => {
        test('五台一起（162 个 MCP 工具）：请求正好 128 个，内置的都在，按配置顺序装入；提示一次、点名 Azure；/mcp 显示开销', async () => {
            const servers = Object.fromEntries(FIVE.map((n) => [n, replay(n)]));
            // 服务器在后台连接：第一次请求模型前会等它们，所以 /mcp 放在第一轮之后
            const r = await run(servers, ['你好', '/mcp'], [{ kind: 'text', text: '你好！' }]);
            assert.equal(r.code, 0, r.stderr);
            const body = r.requests[0].body;
            assert.equal(body.tools.length, 128);
            const builtins = body.tools.length - mcpNames(body).length;
            assert.ok(builtins >= 10, `内置工具只有 ${builtins} 个？`);
            // 前四台 101 个全部装下，Azure 只装得下剩下的名额
            const azureKept = 128 - builtins - 101;
            const per = (prefix: string) => mcpNames(body).filter((n) => n.startsWith(prefix)).length;
            assert.deepEqual([per('mcp_playwright_'), per('mcp_notionApi_'), per('mcp_desktop-commander_'), per('mcp_github_'), per('mcp_Azure_MCP_Server_')],
                [25, 24, 26, 26, azureKept]);
            const notice = new RegExp(`^工具超过一次请求 128 个的上限（内置 ${builtins} 个，MCP 按 mcp.json 里的顺序装入）：`
                + `Azure MCP Server 的 ${61 - azureKept} 个（共 61 个）工具没有交给模型。.*includeTools（只要这些）或 excludeTools（不要这些）`, 'm');
            assert.match(r.stderr, notice);
            assert.equal(count(r.stderr, '工具超过一次请求'), 1, '启动时只提示一次');
            assert.match(r.stdout, notice, '/mcp 里也有这条提示');
            // /mcp：清洗过的服务器名只在标题里写一次前缀，工具不算改名；每台服务器一行开销
            assert.match(r.stdout, new RegExp(`^Azure MCP Server（${azureKept} 个工具，名字前缀 mcp_Azure_MCP_Server_）$`, 'm'));
            assert.doesNotMatch(r.stdout, /mcp_Azure_MCP_Server_\S+ ←/);
            assert.match(r.stdout, new RegExp(`^ {2}（另有 ${61 - azureKept} 个超出 128 个的上限，没有交给模型）$`, 'm'));
            assert.equal(r.stdout.match(COST_LINE)?.length, 5);
            assert.match(r.stdout, /^playwright（25 个工具）\n(?: {2}mcp_playwright_\S+\n){25} {2}每次请求约 [\d,]+ 字符/m);
        });

        test('六台的每个模式都被严格的假服务接受：propertyNames 被删掉，$ref / $defs 原样保留', async () => {
            const first = ['playwright', 'notionApi', 'desktop-commander', 'github', 'context7'];
            const a = await run(Object.fromEntries(first.map((n) => [n, replay(n)])), ['你好'], [{ kind: 'text', text: '好' }]);
            const b = await run({ 'Azure MCP Server': replay('Azure MCP Server') }, ['你好'], [{ kind: 'text', text: '好' }]);
            for (const r of [a, b]) {
                assert.equal(r.code, 0, r.stderr);
                assert.doesNotMatch(r.stderr, /工具超过一次请求/);
            }
            const sent = [...a.requests[0].body.tools, ...b.requests[0].body.tools].filter((t: any) => t.function.name.startsWith('mcp_'));
            assert.equal(sent.length, 164, '六台服务器的工具全部交给了模型');
            const drop = sent.find((t: any) => t.function.name === 'mcp_playwright_browser_drop').function.parameters;
            assert.ok(!JSON.stringify(drop).includes('"propertyNames"'));
            // notion 的模式里没有要删的东西：除了根上的 $schema 和空的 required，与服务器给的完全相同
            for (const tool of recorded('notionApi.json')) {
                const { $schema: _ignored, ...expected } = tool.inputSchema;
                if (expected.required?.length === 0) delete expected.required;
                const got = sent.find((t: any) => t.function.name === `mcp_notionApi_${tool.name}`).function.parameters;
                assert.deepEqual(got, expected, tool.name);
            }
            assert.ok(JSON.stringify(sent).includes('"$ref":"#/$defs/'));
        });

        test('includeTools / excludeTools 按原名挑选；调用清洗过名字的服务器的工具时用原名', async () => {
            const servers = {
                github: replay('github', { includeTools: ['get_issue', 'create_issue', 'no_such_tool'] }),
                playwright: replay('playwright', { excludeTools: ['browser_drop', 'browser_run_code_unsafe'] }),
                'Azure MCP Server': replay('Azure MCP Server', { includeTools: ['documentation', 'storage', 'keyvault'], excludeTools: ['keyvault'] }),
            };
            const r = await run(servers, ['查一下文档', 'y', '/mcp'], [
                { kind: 'tools', calls: [{ id: 'call_doc', name: 'mcp_Azure_MCP_Server_documentation', arguments: '{}' }] },
                { kind: 'text', text: '查好了。' },
            ]);
            assert.equal(r.code, 0, r.stderr);
            const names = mcpNames(r.requests[0].body);
            // 顺序跟着服务器的列表，不跟着 includeTools 的写法
            assert.deepEqual(names.filter((n) => n.startsWith('mcp_github_')), ['mcp_github_create_issue', 'mcp_github_get_issue']);
            assert.equal(names.filter((n) => n.startsWith('mcp_playwright_')).length, 23);
            assert.ok(!names.includes('mcp_playwright_browser_drop'));
            assert.deepEqual(names.filter((n) => n.startsWith('mcp_Azure_')), ['mcp_Azure_MCP_Server_documentation', 'mcp_Azure_MCP_Server_storage']);
            assert.match(r.stdout, /^github（2 个工具）$/m);
            assert.match(r.stdout, /^Azure MCP Server（2 个工具，名字前缀 mcp_Azure_MCP_Server_）\n {2}mcp_Azure_MCP_Server_documentation\n {2}mcp_Azure_MCP_Server_storage\n/m);
            assert.doesNotMatch(r.stderr + r.stdout, /工具超过一次请求/);
            const answer = r.requests[1].body.messages.find((m: any) => m.role === 'tool');
            assert.equal(answer.content, '回放：documentation');
        });

        test('includeTools 不是字符串数组：只有这台服务器失败，说明字段名', async () => {
            const r = await run({ github: replay('github', { includeTools: 'get_issue' }), context7: replay('context7') }, ['你好'], [{ kind: 'text', text: '好' }]);
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stderr, /^MCP 服务器 github 启动失败：配置无效：includeTools 必须是字符串数组/m);
            assert.deepEqual(mcpNames(r.requests[0].body), ['mcp_context7_resolve-library-id', 'mcp_context7_query-docs']);
        });
    });
}
