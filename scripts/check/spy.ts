// 第 15 天的间谍 MCP 服务器（spy-mcp-server.mjs）怎样配进学习者的工作目录，和怎样读它记下的线上日志。
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { clipLines } from './look.ts';
import type { Probe } from './typist.ts';
import type { SpyEntry } from './types.ts';

const SPY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'spy-mcp-server.mjs');

/** .geekagent/mcp.json 的内容：一台叫 spy 的服务器，以 mode 启动，线上的每一行记进 log。 */
export function spyConfig(log: string, mode: string, marker: string): string {
    const args = [SPY, '--log', log, '--mode', mode, '--marker', marker];
    return JSON.stringify({ mcpServers: { spy: { command: process.execPath, args } } }, null, 2);
}

export function readSpyLog(file: string): SpyEntry[] {
    if (!fs.existsSync(file)) return [];
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as SpyEntry);
}

export const spyPid = (log: SpyEntry[]): number | undefined => log.find((e) => e.kind === 'start')?.pid;

export const isAlive = (pid: number): boolean => {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
};

/** 服务器收到的、能解析的每一条消息。 */
export const received = (log: SpyEntry[]): SpyEntry[] => log.filter((e) => e.kind === 'in' && e.msg);

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

/** 给 Miss 看的线上摘录。 */
export const wire = (log: SpyEntry[]): string =>
    (log.length === 0 ? '（空：服务器没有启动）' : clipLines(log.filter((e) => e.kind === 'in' || e.kind === 'out').map(wireLine)));

/**
 * 打字时看间谍服务器忙不忙：它收到的请求还没回答、它还活着、而且这之后模型没再收到请求（Agent 还在等它）。
 * 故意不回答的请求（silent）在 Agent 自己放弃、带着结果去问模型之后就不算了。
 */
export function spyProbe(file: string): Probe {
    return {
        busy(lastRequestAt) {
            const log = readSpyLog(file);
            const pid = spyPid(log);
            if (pid === undefined || log.some((e) => e.kind === 'exit') || !isAlive(pid)) return undefined;
            const answered = new Set(log.filter((e) => e.kind === 'out').map((e) => {
                try {
                    return JSON.stringify(JSON.parse(e.line!).id);
                } catch {
                    return '';
                }
            }));
            const waiting = received(log).find((e) => typeof e.msg.method === 'string' && e.msg.id !== undefined
                && !answered.has(JSON.stringify(e.msg.id)) && e.t > lastRequestAt);
            return waiting ? `MCP 服务器还没回答 ${waiting.msg.method}（id ${JSON.stringify(waiting.msg.id)}）` : undefined;
        },
        servers() {
            const pid = spyPid(readSpyLog(file));
            return pid === undefined ? [] : [pid];
        },
    };
}
