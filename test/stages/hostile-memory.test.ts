// 恶意的输入撑不大 Agent 的内存：没有换行的 48 MiB 文件，发个不停、又不读 Agent 回话的 MCP 服务器。
// 量的是 Agent 进程自己的 /proc/<pid>/status（测试直接用 node 跑转好的入口，child.pid 就是 Agent，不是 tsx、sh 之类的外壳）：
// 答完第一句之后的 VmRSS 作基线，清掉峰值（往 /proc/<pid>/clear_refs 写 5）再做这件事，之后看峰值 VmHWM 比基线高了多少。
// 不量时间：Agent 在运行器平常的期限内做完、还答得上下一句，就说明没有卡住。
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools, type FakeReply } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI, type FakeServer } from '../../scripts/fake-model/server.ts';
import { runAgent, toolResults, untilMcpConnected } from '../helpers/agent.ts';
import { HARDENED_ONLY, startStage, type RunningStage } from '../helpers/run-stage.ts';
import { waitUntil } from '../helpers/wait.ts';
import { workdir } from '../helpers/workdir.ts';
import { leftovers, server } from '../mcp/util.ts';

const MiB = 1024 * 1024;
const LIMIT = 32 * MiB;
const needsProc = { skip: !fs.existsSync('/proc/self/status') && '要 Linux 的 /proc/<pid>/status 才量得到内存' };

/** /proc/<pid>/status 里的一项（VmRSS、VmHWM），字节。 */
function vm(pid: number, field: 'VmRSS' | 'VmHWM'): number {
    const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
    return Number(/(\d+) kB/.exec(line ?? '')?.[1]) * 1024;
}

/** 基线：此刻的 VmRSS；再清掉峰值，之后的 VmHWM 只算从现在起的。清不掉（老内核）就留着启动时的峰值：只会量得偏高，不会偏低。 */
function baseline(pid: number): number {
    const rss = vm(pid, 'VmRSS');
    try {
        fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch { /* 见上 */ }
    return rss;
}

const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

/** 一问一答：写一行，等模型的回答 reply 出现在输出里。 */
async function turn(run: RunningStage, line: string, reply: string): Promise<void> {
    const from = run.stdout().length;
    run.write(line);
    await waitUntil(`回答「${reply}」`, () => run.stdout().slice(from).includes(reply), () => run.stdout().slice(-2000) + run.stderr().slice(-2000));
}

/**
 * 起 Agent、答完第一句、等 MCP 服务器连上，量基线；然后问 ask，等模型的回答 reply，量峰值比基线高了多少；再问一句看它还在，
 * 最后发 EOF 等它退出。模型的回复依次是「你好」、replies、「还在」。
 */
async function measure(stage: string, cwd: string, input: string[], ask: string, replies: FakeReply[], reply: string) {
    const fake: FakeServer = await startFakeOpenAI({ replies: [text('你好'), ...replies, text('还在')] });
    try {
        const run = startStage(stage, { cwd, input, holdStdin: true, env: { OPENAI_BASE_URL: fake.url } });
        await turn(run, '你好', '你好');
        await untilMcpConnected(run);
        const pid = run.child.pid!;
        const base = baseline(pid);
        await turn(run, ask, reply);
        const rise = vm(pid, 'VmHWM') - base;
        await turn(run, '还在吗', '还在');
        run.end();
        const r = await run.done;
        return { ...r, rise, results: toolResults(...fake.requests.map((q) => q.body)) };
    } finally {
        await fake.close();
    }
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 恶意的输入撑不大内存`, () => {
        test('read 一个 48 MiB、没有换行的文件：交回一页、说明这一行没完，Agent 还在，内存峰值比基线高不到 32 MiB', needsProc, async (t) => {
            // 整个文件是连写的 -----BEGIN：处处像私钥块的开头。从前 read 为了不切开私钥块，每次都把切点退回到这一行的行首，
            // 也就是文件开头，整个文件攒在内存里（峰值高了约 300 MiB）
            const cwd = workdir();
            const fd = fs.openSync(path.join(cwd, 'big.txt'), 'w');
            const block = Buffer.alloc(MiB, '-----BEGIN');
            for (let i = 0; i < 48; i++) fs.writeSync(fd, block);
            fs.closeSync(fd);
            const r = await measure(stage, cwd, [], '读一下 big.txt', [tools(call('c1', 'read', { path: 'big.txt' })), text('读完了')], '读完了');
            t.diagnostic(`峰值比基线高了 ${mib(r.rise)}`);
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.c1, [
                `（文件有 ${48 * MiB} 字节，没读到末尾、不知道共多少个字符，本次读取 0-2000）`,
                '-----BEGIN'.repeat(200),
                '这一页都在同一行里，这一行比一页还长，到页末还没完；还有更多内容；用 offset=2000 继续调用 read',
            ].join('\n'));
            assert.ok(r.rise < LIMIT, `峰值比基线高了 ${mib(r.rise)}`);
        });

        test('MCP 服务器发个不停的 ping、又不读 Agent 的回答：积压到上限就断开、说为什么，Agent 还在，内存峰值比基线高不到 32 MiB', needsProc, async (t) => {
            // id 很短的 ping 只有几十字节：从前每条回答在写缓冲里都是一个对象，8 MiB 的积压让 Agent 多占了约 70 MiB
            const mark = randomUUID();
            const cwd = workdir({
                '.geekagent/mcp.json': JSON.stringify({ mcpServers: { hog: { command: 'node', args: [server('ping-flood.mjs')], env: { GEEKAGENT_TEST_MARK: mark, PING_ID: '8' } } } }),
                '.geekagent/GeekAgent.json': JSON.stringify({ root: '..', tools: { 'mcp_hog_*': 'allow' } }),
            });
            const r = await measure(stage, cwd, ['y'], '调一下', [tools(call('c1', 'mcp_hog_flood')), text('断开了')], '断开了');
            t.diagnostic(`峰值比基线高了 ${mib(r.rise)}`);
            assert.equal(r.code, 0, r.stderr);
            const said = 'MCP 服务器 hog 不读输入，已断开（发给它的消息积压超过 4 MiB；/mcp reconnect hog 可以重连）';
            assert.ok(r.stderr.includes(`[mcp:hog] 客户端：${said}`), r.stderr.slice(-2000));
            assert.ok(r.results.c1.startsWith(`工具执行失败：${said}`), r.results.c1);
            assert.ok(r.rise < LIMIT, `峰值比基线高了 ${mib(r.rise)}`);
            assert.deepEqual(leftovers('', mark), []);
        });
    });

    describe(`${stage}: read 一块一块地脱敏`, () => {
        test('像 .env 的一行，值比一块还长：切成几块读，整行照样换成 [REDACTED:名字]，后半截也不给模型', async () => {
            const value = Array.from({ length: 12_000 }, (_, i) => `part${i}`).join(' ');   // 约 100 KB，中间有空格：会在值的中间切开
            const cwd = workdir({ 'settings.txt': `# 服务\nAPI_TOKEN=${value}\nNEXT=1\n` });
            const r = await runAgent(stage, { cwd, input: ['读一下'], replies: [tools(call('c1', 'read', { path: 'settings.txt' })), text('好')] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.c1, '（文件共 43 个字符，本次读取 0-43）\n# 服务\nAPI_TOKEN=[REDACTED:API_TOKEN]\nNEXT=1\n');
        });

        test('引号里跨几行的私钥（PRIVATE_KEY="-----BEGIN…）正好在第一块的切点附近：整块照样换成 [REDACTED]', async () => {
            const filler = `${'f'.repeat(99)}\n`.repeat(610);   // 61 000 个字符：私钥那一行从第一块（64 KiB）的余量里开始
            const body = Array.from({ length: 20 }, (_, i) => `KeyBody${String(i).padStart(2, '0')}${'Q'.repeat(55)}`);
            const key = `PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\n${body.join('\n')}\n-----END RSA PRIVATE KEY-----"\nNEXT=1\n`;
            const cwd = workdir({ 'deploy.env': filler + key });
            const r = await runAgent(stage, { cwd, input: ['读一下'], replies: [tools(call('c1', 'read', { path: 'deploy.env', offset: 60_990 })), text('好')] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.results.c1, `（文件共 61032 个字符，本次读取 60990-61032）\n${'f'.repeat(9)}\nPRIVATE_KEY="[REDACTED]"\nNEXT=1\n`);
        });
    });
}
