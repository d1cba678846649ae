// Day 1：命令行 REPL。读一行 → 连同整个历史发给模型 → 回复一边生成一边显示 → 再读下一行。
// Day 7：入口只做组装：stdin、stdout 都是终端时用全屏界面，否则用行模式；两个前端都把读到的行放进同一个输入队列。
import { Chat } from './chat.ts';
import { err } from './color.ts';
import { runCommand, saveOnExit } from './commands.ts';
import { keyHost, loadConfig, MISSING_KEY } from './config.ts';
import { registerFileTools } from './files.ts';
import type { FrontEnd } from './frontend.ts';
import { createFullScreen } from './fullscreen.ts';
import { EOF, InputQueue } from './input.ts';
import { buildSystemPrompt, loadInstructions } from './instructions.ts';   // Day 10
import { mcpTrustItems, readMcpConfig, startMcp, stopMcp } from './mcp-setup.ts';   // Day 15
import { getMemories, loadMemory, registerMemoryTools } from './memory.ts';
import { loadPermissions, relaxations, untrusted, usePermissions, type Rules } from './permissions.ts';
import { createPlain } from './plain.ts';
import { forceTodo, registerPlanningTools } from './planning.ts';   // Day 9
import { loadRag, registerRagTools } from './rag.ts';   // Day 14
import { recallMemory } from './recall.ts';   // Day 13
import { registerSearchTool } from './search.ts';   // Day 12
import { Sessions } from './sessions.ts';
import { registerShellTools } from './shell.ts';
import { activeSkill, listSkills, loadSkills } from './skills.ts';   // Day 11
import { registerSubAgentTool } from './subagent.ts';   // Day 9
import { confirm, setConfirmFn } from './tools.ts';
import { trustFolder } from './trust.ts';
import { registerFetchTool } from './web.ts';   // Day 12

const BANNER = 'GeekAgent Day 15 — 代码搜索、网页抓取、记忆召回、知识库与 MCP（day15）';
const cfg = loadConfig();
const chat = new Chat(cfg);
// Day 4：工具由入口显式注册，打开这个文件就看得到有哪些工具；注册的先后就是请求里、/help 里的顺序
registerShellTools();
registerFileTools();
registerPlanningTools();       // Day 9：todo_write
registerSubAgentTool(cfg);     // Day 9：delegate_task
registerMemoryTools();         // Day 10：memory_write、memory_search
registerSearchTool();          // Day 12：search、fetch
registerFetchTool();
registerRagTools();            // Day 14：rag_add、rag_search
chat.setForcedTool(forceTodo);   // Day 9：要计划时先强制 todo_write（Chat 只留钩子，规矩在 planning.ts）
// Day 10：系统提示每次请求前由这个函数重新拼：AGENTS.md（信任问题答完才读）、启用着的技能的说明（第 11 天）
let instructions = '';
let recall = '';   // Day 13：这一轮召回的记忆，turn() 开头按你这句话更新；只进这一轮的请求
chat.setSystemPrompt(() => buildSystemPrompt({ agents: instructions, skill: activeSkill()?.body }) + (recall ? `\n\n${recall}` : ''));
const memoryProblem = loadMemory();   // Day 10：读不出来就说一句，这次不用记忆，文件不覆盖
const skillProblems = await loadSkills();   // Day 11：代码旁边的 skills/，自带的 tools.ts 动态 import
const ragProblem = loadRag();          // Day 14：读不了的知识库：说一句，不覆盖
const mcpConfig = readMcpConfig();     // Day 15：只读，信任之前一台也不启动
const rules = readPermissions();   // Day 8：在占下终端之前读：写错了就报错退出
const sessions = new Sessions();   // Day 6
let running: AbortController | null = null;   // 进行中的一轮
const queue = new InputQueue();   // Day 3：读到的行先排队，确认问题也从这里取回答
let confirming = false;           // Day 3：正在等 [y/N] 的回答

// Day 7：两个前端，一个接口
const hooks = { interrupt, quit };
const fullScreen = Boolean(process.stdin.isTTY && process.stdout.isTTY);
const ui: FrontEnd = fullScreen ? createFullScreen(queue, hooks, { cfg, chat, sessions }) : createPlain(queue, hooks);
const context = { chat, sessions, ui };
// 管道输入时 Ctrl+C 是发给进程的信号；SIGTERM、SIGHUP（关掉终端窗口）也走正常的退出流程：先回滚，再恢复终端、保存
process.on('SIGINT', interrupt);
process.on('SIGTERM', quit);
process.on('SIGHUP', quit);

/** Ctrl+C：回复进行中取消这一轮，空闲时退出。 */
function interrupt(): void {
    if (!running) return queue.push(EOF);
    running.abort();   // 正在跑的命令收到同一个信号，整组被杀
    if (confirming) queue.push('');   // Day 3：正在等 [y/N]：替你答「否」，免得它吞掉你接下来打的一行
}

/** Day 7：Ctrl+D、信号：取消进行中的一轮，然后退出（输入结束：主循环取到 EOF，走下面的退出流程）。 */
function quit(): void {
    if (running) interrupt();
    queue.push(EOF);
}

// Day 3：工具要改变什么之前先问。问题原样显示（控制字符转义）；只有 y / yes 算同意，空行、别的字、输入结束、Ctrl+C 都是否
setConfirmFn(async (question) => {
    confirming = true;
    const answer = await ui.confirm(question);
    confirming = false;
    return /^(y|yes)$/i.test(answer.trim());
});

ui.print('system', BANNER);
ui.print('system', '这是教学版，只有章节里讲到的东西；日常使用请在仓库根目录运行 npm start（加固版）');
ui.print('system', `模型：${cfg.model}　密钥发往 ${keyHost(cfg)}　输入 /help 查看命令`);
if (!cfg.apiKey) ui.print('error', MISSING_KEY);

// Day 8：文件夹自己的配置要放宽权限、要替密钥选地址、要把 .env 的变量交给程序时，先问一次信任；答 y 之前一样都不生效
// Day 15：mcp.json 要启动的服务器也在这个问题里；答 y 之后才启动
if (await trustFolder([...mcpTrustItems(mcpConfig), ...relaxations(rules)], cfg, confirm, (text) => ui.print('error', text))) {
    usePermissions(rules);
    for (const line of await startMcp(mcpConfig)) ui.print('error', line);
} else {
    usePermissions(untrusted(rules));
    ui.print('system', '没有信任这个文件夹：根目录就是这个文件夹，它的 allow 规则不生效（deny 照常），.env 的变量不交给程序');
}
// Day 10–11：根目录定下来之后才读 AGENTS.md；读不出来的记忆、没加载的技能各说一句，Agent 照常运行
try {
    instructions = loadInstructions();
} catch (e) {
    ui.print('error', `读取 AGENTS.md 失败（这次不用它）：${(e as Error).message}`);
}
if (memoryProblem) ui.print('error', memoryProblem);
if (ragProblem) ui.print('error', ragProblem);
for (const line of mcpConfig.problems) ui.print('error', line);
for (const line of skillProblems) ui.print('error', line);
ui.print('system', `技能：${listSkills().map((k) => k.name).join('、') || '无'}（/skills 查看，/use 启用，/unuse 停用）`);

async function turn(text: string): Promise<void> {
    recall = recallMemory(getMemories(), text);   // Day 13：先召回，再请求
    const controller = running = new AbortController();
    ui.setBusy(true);
    try {
        for await (const piece of chat.streamReply(text, controller.signal)) ui.piece(piece);
        ui.endReply();
    } catch (e) {
        ui.endReply();
        if (controller.signal.aborted) ui.print('system', '（已中断，本轮已撤销）');
        else ui.print('error', `请求失败：${(e as Error).message}`);
    } finally {
        running = null;
        ui.setBusy(false);
    }
}

/** Day 8：权限表写错了：报错退出，不带着「全部默认」悄悄跑起来。 */
function readPermissions(): Rules {
    try {
        return loadPermissions();
    } catch (e) {
        err('error', `${(e as Error).message}\n提示：改好它，或者删掉它（就用默认的权限）`);
        process.exit(1);
    }
}

// Day 3：行从输入队列里取；队里还有排着的行时不显示提示符，它们马上就处理
for (;;) {
    if (queue.size === 0) ui.ready();
    const item = await queue.next();
    if (item === EOF) break;
    const line = item.trim();
    if (!line) continue;
    ui.echo(line);
    if (line.startsWith('/')) {
        if ((await runCommand(line, context)) === 'exit') break;   // Day 6：命令是一张表（commands.ts）
    } else await turn(line);
}
// Day 6：退出流程：前端先还原终端（全屏界面），再保存对话，最后说 bye
await stopMcp();   // Day 15：不留进程
ui.close();
saveOnExit(context);
ui.print('system', 'bye');
