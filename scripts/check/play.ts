// 跑一行表里的剧本（types.ts 的 Scenario）：建好工作目录和文件、照剧本打字、让假模型照规则回答；第 15 天再配上间谍服务器。
import path from 'node:path';
import { text, type FakeReply } from '../fake-model/replies.ts';
import { newPlace, runLearner, writeFiles, type LearnerOptions, type LearnerRun, type Place } from './harness.ts';
import { contentOf, mark, messagesOf } from './look.ts';
import { isAlive, readSpyLog, spyConfig, spyPid, spyProbe } from './spy.ts';
import type { Played, Rule, Scenario } from './types.ts';

/**
 * 按最后一条消息决定回复，从不看这是第几个请求（学习者的 Agent 多问一句、少问一句都不乱）：
 * 最后一条是用户消息、含有 rules 里的某个键，就照那条回；其余（工具结果回来了、多出来的 y……）回一句短文字。
 */
export function byLastUser(rules: Record<string, Rule>, otherwise = '好的'): (body: any) => FakeReply {
    return (body) => {
        const last = messagesOf(body).at(-1);
        if (last?.role === 'user') {
            const said = contentOf(last);
            for (const [key, rule] of Object.entries(rules)) {
                if (said.includes(key)) return typeof rule === 'function' ? rule(body) : rule;
            }
        }
        return text(otherwise);
    };
}

function modelFor(s: Omit<Scenario, 'then'>, place: Place): (body: any) => FakeReply {
    if (typeof s.model === 'function') return s.model(place);
    return byLastUser(s.model ?? {}, s.otherwise);
}

async function once(entry: string, s: Omit<Scenario, 'then'>, place: Place, extra: Partial<LearnerOptions>): Promise<LearnerRun & Pick<Played, 'wire' | 'spyAlive' | 'spyMarker'>> {
    writeFiles(path.dirname(place.dir), s.outside ?? {});
    const files = { ...s.files };
    const log = path.join(place.base, `spy-${mark('')}.log`);
    const spyMarker = s.mcp === undefined ? undefined : mark('SPY');
    if (spyMarker !== undefined) files['.geekagent/mcp.json'] = spyConfig(log, s.mcp!, spyMarker);
    let spyAlive: boolean | undefined;
    try {
        const run = await runLearner(entry, {
            ...extra,
            lines: s.lines,
            files,
            env: s.env,
            timeoutMs: s.timeoutMs,
            place,
            model: modelFor(s, place),
            probes: spyMarker === undefined ? extra.probes : [...(extra.probes ?? []), spyProbe(log)],
            afterExit: () => {
                const pid = spyPid(readSpyLog(log));
                spyAlive = pid !== undefined && isAlive(pid);
            },
        });
        return { ...run, wire: readSpyLog(log), spyAlive, spyMarker };
    } finally {
        const pid = spyPid(readSpyLog(log));
        if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');   // 检查自己起的服务器，不留给机器
    }
}

/** 跑一个剧本（有 then 就接着在同一个地方再跑一次）。 */
export async function play(entry: string, s: Scenario, extra: Partial<LearnerOptions> = {}): Promise<Played> {
    const place = newPlace();
    const first = await once(entry, s, place, extra);
    if (!s.then) return first;
    const second = await once(entry, s.then, place, extra);
    return { ...first, then: second };
}
