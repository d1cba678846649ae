// Day 1：协议追踪。GEEKAGENT_TRACE=llm（或 all）启动即开，/trace 随时开关。和模型收发的每条消息
// 记成 .geekagent/trace.log 里的一行：启动后的秒数、通道、方向（→ 发出，← 收到，· 事件）、原文。
import fs from 'node:fs';
import { redact } from './redact.js';

export const TRACE_FILE = '.geekagent/trace.log';
let on = /\b(llm|all)\b/.test(process.env.GEEKAGENT_TRACE ?? '');

/** 给用户看的开关状态；/trace 先切换再显示。 */
export function traceStatus(toggle: boolean): string {
    if (toggle) on = !on;
    return on ? `（协议追踪已开启，写入 ${TRACE_FILE}）` : '（协议追踪已关闭）';
}

/** 关闭时只有一次判断。先脱敏（Day 8），再把控制字符转义成 \uXXXX：既伪造不了行，也扰乱不了查看它的终端。超过 4 MiB 换新文件，旧的留一份 .1。 */
export function trace(dir: string, text: string): void {
    if (!on) return;
    try {
        fs.mkdirSync('.geekagent', { recursive: true });
        if ((fs.statSync(TRACE_FILE, { throwIfNoEntry: false })?.size ?? 0) > 4 << 20) fs.renameSync(TRACE_FILE, TRACE_FILE + '.1');
        const safe = redact(text).replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
        fs.appendFileSync(TRACE_FILE, `+${process.uptime().toFixed(3)}s llm ${dir} ${safe}\n`);
    } catch {
        on = false;   // 写不进去（没有写权限、磁盘满）就停止追踪：追踪不能让这一轮失败；/trace 会显示已关闭
    }
}
