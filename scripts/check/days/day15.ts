// 第 15 天：MCP 客户端。工作目录的 .geekagent/mcp.json 里配一台「间谍」服务器 spy（spy-mcp-server.mjs）：
// 它把线上的每一行记进日志，检查事后看客户端发了什么、按什么顺序；有的检查让它故意乱序回答、不回答、中途退出、关了 stdin 也不走。
// 有 mcp.json 的文件夹，本仓库的 Agent 先问信不信任、调用 MCP 工具前再问一次：行里多给几个 y，没有这些问题的 Agent 把 y 当一句话，得到一句短回答。
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, tools } from '../../../test/helpers/agent.js';
import { runLearner, type LearnerRun } from '../harness.js';
import { byLastUser, clipLines, messagesOf, mark, once, requestFor, showMessages, toolNames, toolResult, toolSchema } from '../later-days.js';
import { Miss, type Check } from '../types.js';

const SECTION = 'day15/README.md#第-15-天mcp-客户端';
const SPY = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'spy-mcp-server.mjs');
const CALL = '调用 echo';
const AFTER = '还在吗';

export interface SpyEntry { t: number; kind: string; line?: string; msg?: any; pid?: number; signal?: string }

interface SpyRun {
    run: LearnerRun;
    log: SpyEntry[];
    marker: string;
    resultAt?: number;           // 模型收到 echo 的工具结果的时刻
    alive?: boolean;             // 学习者退出时（杀掉整组之前）服务器进程还在不在
}

const TEXT = 'hello-mcp';

function readLog(file: string): SpyEntry[] {
    if (!fs.existsSync(file)) return [];
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as SpyEntry);
}

const isAlive = (pid: number): boolean => {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
};

/** 跑一次：spy 以 mode 启动，模型在用户说「调用 echo」时调用 mcp_spy_echo。 */
async function spyRun(entry: string, mode: string, lines: string[], timeoutMs?: number): Promise<SpyRun> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-spy-'));
    const logFile = path.join(dir, 'spy.log');
    const marker = mark('SPY');
    const config = { mcpServers: { spy: { command: process.execPath, args: [SPY, '--log', logFile, '--mode', mode, '--marker', marker] } } };
    const echo = byLastUser({ [CALL]: tools(call('call_echo_1', 'mcp_spy_echo', { text: TEXT })) });
    const out: Partial<SpyRun> = { marker };
    const spyPid = () => readLog(logFile).find((e) => e.kind === 'start')?.pid;
    try {
        out.run = await runLearner(entry, {
            lines,
            files: { '.geekagent/mcp.json': JSON.stringify(config, null, 2) },
            timeoutMs,
            model(body) {
                const last = messagesOf(body).at(-1);
                if (out.resultAt === undefined && last?.role === 'tool' && last.tool_call_id === 'call_echo_1') out.resultAt = Date.now();
                return echo(body);
            },
            afterExit() {
                const pid = spyPid();
                out.alive = pid !== undefined && isAlive(pid);
            },
        });
        out.log = readLog(logFile);
        return out as SpyRun;
    } finally {
        const pid = spyPid();
        if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');   // 检查自己起的服务器，不留给机器
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

const received = (log: SpyEntry[]) => log.filter((e) => e.kind === 'in' && e.msg);
// 线上的每一行缩成一句：谁发的、请求 / 通知 / 响应、id；响应带上第一段文字
function wireLine(e: SpyEntry): string {
    const dir = e.kind === 'in' ? '→ 服务器' : '← 服务器';
    let msg: any = e.msg;
    try {
        msg ??= JSON.parse(e.line!);
    } catch {
        return `${dir} 不是 JSON：${e.line}`;
    }
    const id = msg?.id === undefined ? '' : `（id ${JSON.stringify(msg.id)}）`;
    if (typeof msg?.method === 'string') return `${dir} ${id ? '请求' : '通知'} ${msg.method}${id}`;
    const said = msg?.error ? `错误 ${JSON.stringify(msg.error)}` : msg?.result?.content?.[0]?.text ?? '';
    return `${dir} 响应${id} ${String(said).slice(0, 60)}`.trimEnd();
}
const wire = (log: SpyEntry[]) => (log.length === 0 ? '（空：服务器没有启动）' : clipLines(log.filter((e) => e.kind === 'in' || e.kind === 'out').map(wireLine)));
const callEntry = (log: SpyEntry[]) => received(log).find((e) => e.msg.method === 'tools/call');

const basicRun = (entry: string) => once(entry, 'day15-basic', () => spyRun(entry, '', ['y', CALL, 'y', 'y', '/exit']));

// 服务器收到 tools/call 之后，模型隔了多久才收到这次调用的工具结果
function late(r: SpyRun, waited: number | undefined): string {
    if (!callEntry(r.log)) return `服务器没收到 tools/call（工具结果：${toolResult(r.run, 'call_echo_1') ?? '（没有）'}）`;
    return waited === undefined ? '模型一直没收到这次调用的工具结果' : `工具结果在 ${(waited / 1000).toFixed(1)} 秒后才到`;
}

function echoResult(r: SpyRun, what: string): void {
    const result = toolResult(r.run, 'call_echo_1');
    if (!result?.includes(`${r.marker}:${TEXT}`) || result.includes('WRONG-')) {
        throw new Miss(`${what}：mcp_spy_echo 的工具结果含有服务器回答的「${r.marker}:${TEXT}」`, `工具结果：${result ?? '（没有）'}\n线上：\n${wire(r.log)}`);
    }
}

export const checks: Check[] = [
    {
        day: 15,
        name: '握手顺序：initialize → initialized 通知 → tools/list',
        hint: '启动服务器后先发 initialize 请求（params 里有 protocolVersion），等到它的响应，再发没有 id 的 notifications/initialized，然后 tools/list',
        section: SECTION,
        async run(entry) {
            const { log } = await basicRun(entry);
            const methods = received(log).map((e) => e.msg.method ?? `响应 ${e.msg.id}`);
            const init = received(log).find((e) => e.msg.method === 'initialize');
            const initAt = log.indexOf(init!);
            const answeredAt = log.findIndex((e) => e.kind === 'out' && init && JSON.parse(e.line!).id === init.msg.id);
            const notifiedAt = log.findIndex((e) => e.kind === 'in' && e.msg?.method === 'notifications/initialized');
            const listAt = log.findIndex((e) => e.kind === 'in' && e.msg?.method === 'tools/list');
            const ok = methods[0] === 'initialize' && typeof init?.msg.params?.protocolVersion === 'string' && 'id' in init.msg
                && answeredAt > initAt && notifiedAt > answeredAt && !('id' in (log[notifiedAt]?.msg ?? {})) && listAt > notifiedAt;
            if (!ok) throw new Miss('服务器依次收到 initialize（带 protocolVersion）、它的响应发出之后的 notifications/initialized（没有 id）、tools/list', `服务器收到：${methods.join(' → ') || '（什么也没收到：服务器启动了吗？）'}\n线上：\n${wire(log)}`);
        },
    },
    {
        day: 15,
        name: '工具以 mcp_<服务名>_<工具名> 交给模型',
        hint: 'tools/list 拿到的每个工具注册成 mcp_<mcp.json 里的服务器名>_<工具名>，说明照抄，inputSchema 当 parameters',
        section: SECTION,
        async run(entry) {
            const { run, log } = await basicRun(entry);
            const body = requestFor(run, CALL);
            const echo = toolSchema(body, 'mcp_spy_echo');
            if (!echo || !toolNames(body).includes('mcp_spy_clock') || echo.parameters?.properties?.text?.type !== 'string') {
                throw new Miss('「调用 echo」这一轮的请求里有 mcp_spy_echo（参数 text 来自服务器的 inputSchema）和 mcp_spy_clock',
                    `请求里的工具：${toolNames(body).join('、') || '（没有）'}${echo ? `\nmcp_spy_echo：${JSON.stringify(echo)}` : ''}${log.length ? '' : '\n服务器没有启动'}`);
            }
        },
    },
    {
        day: 15,
        name: '工具结果回给模型：用服务器上的原名发 tools/call，结果成为工具消息',
        hint: '模型调用 mcp_spy_echo 时，向服务器 spy 发 tools/call，params 是 {name:"echo", arguments:模型给的参数}；把 result.content 里的文字作为工具结果',
        section: SECTION,
        async run(entry) {
            const r = await basicRun(entry);
            const sent = callEntry(r.log)?.msg.params;
            if (sent?.name !== 'echo' || sent?.arguments?.text !== TEXT) {
                throw new Miss(`服务器收到 tools/call，params.name 是 echo、arguments 是 {"text":"${TEXT}"}`, `线上：\n${wire(r.log)}`);
            }
            echoResult(r, '服务器正常回答');
        },
    },
    {
        day: 15,
        name: '响应按 id 配对（服务器乱序回答也对）',
        hint: '每个请求一个新 id，记在表里等同 id 的响应；id 对不上的响应、没有 id 的通知、服务器发来的请求（有 method）都不是这个请求的回答',
        section: SECTION,
        async run(entry) {
            const r = await once(entry, 'day15-order', () => spyRun(entry, 'out-of-order,chatty', ['y', CALL, 'y', 'y', '/exit']));
            echoResult(r, '服务器先发一条通知、一个 ping 请求和一个 id 对不上的响应（WRONG-…），再发正确的响应');
        },
    },
    {
        day: 15,
        name: '10 秒没有回答的请求失败而 Agent 继续',
        hint: '每个请求发出时开一个计时器（默认 10 秒），到时没有响应就让这个请求失败、从表里删掉；工具结果写「超时」，这一轮照常结束',
        section: SECTION,
        async run(entry) {
            const r = await once(entry, 'day15-silent', () => spyRun(entry, 'silent', ['y', CALL, 'y', AFTER, '/exit'], 25_000));
            const asked = callEntry(r.log);
            const waited = asked && r.resultAt !== undefined ? r.resultAt - asked.t : undefined;
            if (waited === undefined || waited > 15_000 || !requestFor(r.run, AFTER)) {
                throw new Miss(`服务器不回答 tools/call：约 10 秒后模型收到这次调用的工具结果（失败），下一句「${AFTER}」照常发给模型`,
                    `${late(r, waited)}；${r.run.timedOut ? 'Agent 一直没退出，被检查杀掉' : `「${AFTER}」${requestFor(r.run, AFTER) ? '发了' : '没发给模型'}`}\n最后一个请求：\n${showMessages(r.run.requests.at(-1))}`);
            }
        },
    },
    {
        day: 15,
        name: '服务器退出后挂起的请求立即失败（markDead）',
        hint: '监听子进程的 exit：服务器一退出，表里所有还在等的请求立刻失败（不等 10 秒超时），之后的请求也直接失败',
        section: SECTION,
        async run(entry) {
            const r = await once(entry, 'day15-exit', () => spyRun(entry, 'exit-on-call', ['y', CALL, 'y', AFTER, '/exit'], 25_000));
            const asked = callEntry(r.log);
            const waited = asked && r.resultAt !== undefined ? r.resultAt - asked.t : undefined;
            if (waited === undefined || waited > 5_000 || !requestFor(r.run, AFTER)) {
                throw new Miss(`服务器收到 tools/call 就退出：5 秒之内模型收到这次调用的工具结果（失败），下一句「${AFTER}」照常发给模型`,
                    `${late(r, waited)}${waited !== undefined ? '（像是等到超时，而不是发现服务器退出了）' : ''}；${r.run.timedOut ? 'Agent 一直没退出，被检查杀掉' : `「${AFTER}」${requestFor(r.run, AFTER) ? '发了' : '没发给模型'}`}`);
            }
        },
    },
    {
        day: 15,
        name: 'Agent 退出后服务器进程不留下',
        hint: '退出前停掉每台服务器：关它的 stdin，等一会儿还在就 kill（有的服务器关了 stdin 也不退出）；Agent 等它们停下再退出',
        section: SECTION,
        async run(entry) {
            const r = await once(entry, 'day15-stubborn', () => spyRun(entry, 'stubborn', ['y', '你好', '/exit']));
            const started = r.log.some((e) => e.kind === 'start');
            if (!started || r.alive !== false || r.run.timedOut) {
                throw new Miss('Agent 读到 /exit 退出时，服务器进程（关了 stdin 也不自己退出）已经停了',
                    !started ? '服务器没有启动' : r.run.timedOut ? 'Agent 一直没退出，被检查杀掉' : `Agent 退出后服务器还在运行；它的日志：\n${clipLines(r.log.map((e) => `${e.kind}${e.signal ? ` ${e.signal}` : ''}`))}`);
            }
        },
    },
];
