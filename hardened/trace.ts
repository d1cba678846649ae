// —— 加固：协议追踪是第二遍读的辅助 ——
// Day 1：协议追踪。GEEKAGENT_TRACE=llm,mcp（或 all）启动即开，/trace 随时开关。收发的每条消息
// 记成 .geekagent/trace.log 里的一行：启动后的秒数、通道、方向（→ 发出，← 收到，· 事件）、原文。
import fs from 'node:fs';
import { redactJsonText } from './redact.ts';

export const TRACE_FILE = '.geekagent/trace.log';
const wanted = process.env.GEEKAGENT_TRACE ?? '';
// Day 15：多了 mcp 通道（和每个 MCP 服务器之间的 JSON-RPC 行）；/trace 同时开关两个通道
const on = { llm: /\b(llm|all)\b/.test(wanted), mcp: /\b(mcp|all)\b/.test(wanted) };

/** 给用户看的开关状态；/trace 先切换再显示。 */
export function traceStatus(toggle: boolean): string {
    if (toggle) on.llm = on.mcp = !(on.llm || on.mcp);
    const refused = on.llm || on.mcp ? symlinkRefusal() : '';   // 打开时先看一眼：追踪文件是指向别处的链接就不开
    if (refused) on.llm = on.mcp = false;
    if (refused) return `（协议追踪没有开启：${refused}）`;
    const channels = Object.entries(on).filter(([, value]) => value).map(([name]) => name);
    return channels.length ? `（协议追踪已开启（${channels.join('、')}），写入 ${TRACE_FILE}）` : '（协议追踪已关闭）';
}

/** 和模型之间的一条消息；关闭时只有一次判断。 */
export function trace(dir: string, text: string): void {
    if (on.llm) write(`llm ${dir}`, text);
}

/** 和一个 MCP 服务器之间的一行；server 名写在方向前面，几个服务器交错时也分得清。 */
export function traceMcp(server: string, dir: string, text: string): void {
    if (on.mcp) write(`mcp ${server} ${dir}`, text);
}

/** 先脱敏（Day 8，JSON 字符串解码后再看），再把控制字符转义成 \uXXXX：既伪造不了行，也扰乱不了查看它的终端。超过 4 MiB 换新文件，旧的留一份 .1。 */
function write(head: string, text: string): void {
    try {
        const refused = symlinkRefusal();   // 运行中才换成链接的：停止追踪，/trace 会说明原因
        if (refused) throw new Error(refused);
        fs.mkdirSync('.geekagent', { recursive: true });
        if ((fs.statSync(TRACE_FILE, { throwIfNoEntry: false })?.size ?? 0) > 4 << 20) fs.renameSync(TRACE_FILE, TRACE_FILE + '.1');
        const safe = redactJsonText(text).replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
        appendNoFollow(`+${process.uptime().toFixed(3)}s ${head} ${safe}\n`);
    } catch {
        // MCP 的追踪点在子进程的事件回调里，这里抛错会让整个 Agent 崩掉：写不进去（没有写权限、磁盘满）就停止追踪，/trace 会显示已关闭
        on.llm = on.mcp = false;
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
