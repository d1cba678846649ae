// 第 15 天：MCP 客户端。工作目录的 .geekagent/mcp.json 里配一台「间谍」服务器 spy（spy-mcp-server.mjs）：
// 它把线上的每一行记进日志，检查事后看客户端发了什么、按什么顺序；有的检查让它故意乱序回答、不回答、中途退出、关了 stdin 也不走。
// 有 mcp.json 的文件夹，本仓库的 Agent 先问信不信任、调用 MCP 工具前再问一次：行里多给几个 y，没有这些问题的 Agent 把 y 当一句话，得到一句短回答。
import { call, tools } from '../../fake-model/replies.ts';
import { clipLines, messagesOf, requestFor, showMessages, toolNames, toolResult, toolSchema } from '../look.ts';
import { received, wire } from '../spy.ts';
import { Miss, type Check, type Played, type Scenario, type SpyEntry } from '../types.ts';

const SECTION = 'day15/README.md#第-15-天mcp-客户端';
const CALL = '调用 echo';
const AFTER = '还在吗';
const TEXT = 'hello-mcp';
const ECHO = { [CALL]: tools(call('call_echo_1', 'mcp_spy_echo', { text: TEXT })) };

/** spy 以 mode 启动，模型在用户说「调用 echo」时调用 mcp_spy_echo。 */
const spy = (mode: string, lines: string[], timeoutMs?: number): Scenario => ({ lines, mcp: mode, model: ECHO, timeoutMs });

const BASIC = spy('', ['y', CALL, 'y', 'y', '/exit']);
const callEntry = (log: SpyEntry[]) => received(log).find((e) => e.msg.method === 'tools/call');

/** 服务器收到 tools/call 之后，隔了多久模型才收到这次调用的工具结果（没收到是 undefined）。 */
function waited(r: Played): number | undefined {
    const asked = callEntry(r.wire);
    const at = r.requests.findIndex((body) => messagesOf(body).some((m) => m.role === 'tool' && m.tool_call_id === 'call_echo_1'));
    return asked && at >= 0 ? r.arrivals[at] - asked.t : undefined;
}

function late(r: Played, ms: number | undefined): string {
    if (!callEntry(r.wire)) return `服务器没收到 tools/call（工具结果：${toolResult(r, 'call_echo_1') ?? '（没有）'}）`;
    return ms === undefined ? '模型一直没收到这次调用的工具结果' : `工具结果在 ${(ms / 1000).toFixed(1)} 秒后才到`;
}

function echoResult(r: Played, what: string): void {
    const result = toolResult(r, 'call_echo_1');
    if (!result?.includes(`${r.spyMarker}:${TEXT}`) || result.includes('WRONG-')) {
        throw new Miss(`${what}：mcp_spy_echo 的工具结果含有服务器回答的「${r.spyMarker}:${TEXT}」`, `工具结果：${result ?? '（没有）'}\n线上：\n${wire(r.wire)}`);
    }
}

export const checks: Check[] = [
    {
        day: 15,
        name: '握手顺序：initialize → initialized 通知 → tools/list',
        hint: '启动服务器后先发 initialize 请求（params 里有 protocolVersion），等到它的响应，再发没有 id 的 notifications/initialized，然后 tools/list',
        section: SECTION,
        scenario: BASIC,
        expect({ wire: log }) {
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
        scenario: BASIC,
        expect(run) {
            const log = run.wire;
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
        scenario: BASIC,
        expect(r) {
            const sent = callEntry(r.wire)?.msg.params;
            if (sent?.name !== 'echo' || sent?.arguments?.text !== TEXT) {
                throw new Miss(`服务器收到 tools/call，params.name 是 echo、arguments 是 {"text":"${TEXT}"}`, `线上：\n${wire(r.wire)}`);
            }
            echoResult(r, '服务器正常回答');
        },
    },
    {
        day: 15,
        name: '响应按 id 配对（服务器乱序回答也对）',
        hint: '每个请求一个新 id，记在表里等同 id 的响应；id 对不上的响应、没有 id 的通知、服务器发来的请求（有 method）都不是这个请求的回答',
        section: SECTION,
        scenario: spy('out-of-order,chatty', ['y', CALL, 'y', 'y', '/exit']),
        expect(r) {
            echoResult(r, '服务器先发一条通知、一个 ping 请求和一个 id 对不上的响应（WRONG-…），再发正确的响应');
        },
    },
    {
        day: 15,
        name: '10 秒没有回答的请求失败而 Agent 继续',
        hint: '每个请求发出时开一个计时器（默认 10 秒），到时没有响应就让这个请求失败、从表里删掉；工具结果写「超时」，这一轮照常结束',
        section: SECTION,
        scenario: spy('silent', ['y', CALL, 'y', AFTER, '/exit'], 25_000),
        expect(r) {
            const ms = waited(r);
            if (ms === undefined || ms > 15_000 || !requestFor(r, AFTER)) {
                throw new Miss(`服务器不回答 tools/call：约 10 秒后模型收到这次调用的工具结果（失败），下一句「${AFTER}」照常发给模型`,
                    `${late(r, ms)}；${r.timedOut ? 'Agent 一直没退出，被检查杀掉' : `「${AFTER}」${requestFor(r, AFTER) ? '发了' : '没发给模型'}`}\n最后一个请求：\n${showMessages(r.requests.at(-1))}`);
            }
        },
    },
    {
        day: 15,
        name: '服务器退出后挂起的请求立即失败（markDead）',
        hint: '监听子进程的 exit：服务器一退出，表里所有还在等的请求立刻失败（不等 10 秒超时），之后的请求也直接失败',
        section: SECTION,
        scenario: spy('exit-on-call', ['y', CALL, 'y', AFTER, '/exit'], 25_000),
        expect(r) {
            const ms = waited(r);
            if (ms === undefined || ms > 5_000 || !requestFor(r, AFTER)) {
                throw new Miss(`服务器收到 tools/call 就退出：5 秒之内模型收到这次调用的工具结果（失败），下一句「${AFTER}」照常发给模型`,
                    `${late(r, ms)}${ms !== undefined ? '（像是等到超时，而不是发现服务器退出了）' : ''}；${r.timedOut ? 'Agent 一直没退出，被检查杀掉' : `「${AFTER}」${requestFor(r, AFTER) ? '发了' : '没发给模型'}`}`);
            }
        },
    },
    {
        day: 15,
        name: 'Agent 退出后服务器进程不留下',
        hint: '退出前停掉每台服务器：关它的 stdin，等一会儿还在就 kill（有的服务器关了 stdin 也不退出）；Agent 等它们停下再退出',
        section: SECTION,
        scenario: spy('stubborn', ['y', '你好', '/exit']),
        expect(r) {
            const started = r.wire.some((e) => e.kind === 'start');
            if (!started || r.spyAlive !== false || r.timedOut) {
                throw new Miss('Agent 读到 /exit 退出时，服务器进程（关了 stdin 也不自己退出）已经停了',
                    !started ? '服务器没有启动' : r.timedOut ? 'Agent 一直没退出，被检查杀掉' : `Agent 退出后服务器还在运行；它的日志：\n${clipLines(r.wire.map((e) => `${e.kind}${e.signal ? ` ${e.signal}` : ''}`))}`);
            }
        },
    },
];
