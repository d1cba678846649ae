// —— 加固：协议追踪是第二遍读的辅助 ——
// Day 1：协议追踪。GEEKAGENT_TRACE=llm（或 all）启动即开，/trace 随时开关。和模型收发的每条消息
// 记成 .geekagent/trace.log 里的一行：启动后的秒数、通道、方向（→ 发出，← 收到，· 事件）、原文。
import fs from 'node:fs';
import { redactJsonText } from './redact.ts';

export const TRACE_FILE = '.geekagent/trace.log';
let on = /\b(llm|all)\b/.test(process.env.GEEKAGENT_TRACE ?? '');

/** 给用户看的开关状态；/trace 先切换再显示。 */
export function traceStatus(toggle: boolean): string {
    if (toggle) on = !on;
    const refused = on ? symlinkRefusal() : '';   // 打开时先看一眼：追踪文件是指向别处的链接就不开
    if (refused) on = false;
    return refused ? `（协议追踪没有开启：${refused}）` : on ? `（协议追踪已开启，写入 ${TRACE_FILE}）` : '（协议追踪已关闭）';
}

/** 关闭时只有一次判断。先脱敏（Day 8，JSON 字符串解码后再看），再把控制字符转义成 \uXXXX：既伪造不了行，也扰乱不了查看它的终端。超过 4 MiB 换新文件，旧的留一份 .1。 */
export function trace(dir: string, text: string): void {
    if (!on) return;
    try {
        const refused = symlinkRefusal();   // 运行中才换成链接的：停止追踪，/trace 会说明原因
        if (refused) throw new Error(refused);
        fs.mkdirSync('.geekagent', { recursive: true });
        if ((fs.statSync(TRACE_FILE, { throwIfNoEntry: false })?.size ?? 0) > 4 << 20) fs.renameSync(TRACE_FILE, TRACE_FILE + '.1');
        const safe = redactJsonText(text).replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
        appendNoFollow(`+${process.uptime().toFixed(3)}s llm ${dir} ${safe}\n`);
    } catch {
        on = false;   // 写不进去（没有写权限、磁盘满）就停止追踪：追踪不能让这一轮失败；/trace 会显示已关闭
    }
}

/**
 * .geekagent 和追踪文件都不能是符号链接：克隆来的仓库可以让它指向项目外面（比如 shell 启动时读的文件），
 * 追踪写进去的是模型的原话。返回拒绝的原因，没问题时是空串。
 */
function symlinkRefusal(): string {
    const link = ['.geekagent', TRACE_FILE].find((p) => fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink());
    if (link) return `${link} 是符号链接，不往里写追踪（它可能指向项目之外）`;
    const file = fs.lstatSync(TRACE_FILE, { throwIfNoEntry: false });   // 命名管道之类：打开就会一直卡住
    return file && !file.isFile() ? `${TRACE_FILE} 不是普通文件，不往里写追踪` : '';
}

// 打开时也不跟随符号链接：检查之后才换成链接的，打开就失败（Windows 没有这个标志）；O_NONBLOCK：检查之后才换成的命名管道
// 打开时立刻失败而不是卡住。新文件只有自己能读写
const APPEND_NO_FOLLOW = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

function appendNoFollow(line: string): void {
    const fd = fs.openSync(TRACE_FILE, APPEND_NO_FOLLOW, 0o600);
    try {
        fs.writeFileSync(fd, line);
    } finally {
        fs.closeSync(fd);
    }
}
