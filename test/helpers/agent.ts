// 跑一次 Agent、假模型照脚本回答，再读出模型收到了什么。大多数端到端测试用这个文件和 scripts/fake-model/replies.ts 的 text / tools / call：
//   const r = await runAgent(stage, { input: ['读一下 a.txt', 'y'], replies: [tools(call('c1', 'read', { path: 'a.txt' })), text('读完了')] });
//   assert.equal(r.results.c1, …);   assert.deepEqual(userTexts(r.requests[1].body), […]);   // results 按调用 id 索引
// 运行中途还要做事（等某个请求到达后发信号）时，直接用 startFakeOpenAI 和 run-stage.ts 的 startStage。
import { startFakeOpenAI, type FakeOptions, type RecordedRequest } from '../../scripts/fake-model/server.ts';
import { assertNoRejections } from './fixtures.ts';
import { startStage, type RunningStage, type RunStageOptions, type RunStageResult } from './run-stage.ts';
import { sleep, waitUntil } from './wait.ts';

// ---------- 模型收到了什么 ----------

export const userTexts = (body: any): string[] => body.messages.filter((m: any) => m.role === 'user').map((m: any) => m.content);
export const toolMessages = (body: any): any[] => body.messages.filter((m: any) => m.role === 'tool');

/** 这些请求体里全部 tool 消息的内容，按 tool_call_id 索引（同一条消息会在后面的请求里重发，取哪次都一样）。 */
export function toolResults(...bodies: any[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const body of bodies) {
        for (const m of body.messages ?? []) if (m.role === 'tool') out[m.tool_call_id] = m.content;
    }
    return out;
}

// ---------- 跑一次 ----------

/**
 * 写在 input 里的一步：等项目的 MCP 服务器都连上，再往下写。
 * 第一次请求模型前 Agent 只等还在连接的服务器几秒；机器忙时服务器还没连上，它的工具就不在请求里。
 * 要用 MCP 工具的测试等「连上了」这件事发生（反复问 /mcp，直到没有「连接中…」），而不是赌它连得够快。
 */
export const MCP_READY = '\u0000等 MCP 服务器连上';

/** 反复问 /mcp，直到没有服务器还在「连接中…」：运行中途才等的测试（startStage）也用它。 */
export async function untilMcpConnected(run: RunningStage): Promise<void> {
    for (;;) {
        const from = run.stdout().length;
        run.write('/mcp');
        // /mcp 的回答是一次写出的几行：回显之后出现了一整行，回答就齐了
        const answer = () => /You › \/mcp\n([^]*\n)/.exec(run.stdout().slice(from))?.[1];
        await waitUntil('/mcp 的回答', () => answer() !== undefined, run.stdout);
        if (!answer()!.includes('（连接中…）')) return;
        await sleep(100);   // 还在连：歇一下再问，不用一连串的 /mcp 占着 Agent
    }
}

export interface AgentRunOptions extends Omit<RunStageOptions, 'input' | 'holdStdin' | 'onSpawn'> {
    input?: string[];                      // 可以含一步 MCP_READY
    replies?: FakeOptions['replies'];      // 回复队列，或按请求生成回复的函数；用完之后回 'ok'
}

export interface AgentRun extends RunStageResult {
    requests: RecordedRequest[];           // 这次运行里模型收到的请求，按顺序
    results: Record<string, string>;       // 工具结果，按调用 id
}

/**
 * 为这一次运行起一个假模型，跑完关掉：每次运行的回复和请求记录都只属于它自己。
 * 压缩阈值调大（测试可以在 env 里改回来），这里的对话不该被压缩；假服务拒绝了请求（Agent 发了不合法的历史）就算失败。
 * 退出码由测试自己断言。
 */
export async function runAgent(stage: string, opts: AgentRunOptions = {}): Promise<AgentRun> {
    const { replies, input = [], env, ...rest } = opts;
    const gate = input.indexOf(MCP_READY);
    const fake = await startFakeOpenAI({ replies });
    try {
        const run = startStage(stage, {
            ...rest,
            input: gate < 0 ? input : input.slice(0, gate),
            holdStdin: gate >= 0,
            env: { OPENAI_BASE_URL: fake.url, GEEKAGENT_MAX_HISTORY: '1000000', ...env },
        });
        if (gate >= 0) {
            await untilMcpConnected(run);
            for (const line of input.slice(gate + 1)) run.write(line);
            run.end();
        }
        const r = await run.done;
        assertNoRejections(fake);
        return { ...r, requests: fake.requests, results: toolResults(...fake.requests.map((q) => q.body)) };
    } finally {
        await fake.close();
    }
}
