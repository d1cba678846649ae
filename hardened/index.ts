// 入口：只做组装。两个终端都是 TTY 时用全屏界面，否则用行模式 REPL。
import { Chat } from './chat.ts';
import { err } from './color.ts';
import { runCommand } from './commands.ts';
import { keyHost, loadConfig, missingKey, settleDotEnv } from './config.ts';
import { registerFileTools } from './files.ts';
import type { FrontEnd } from './frontend.ts';   // Day 7：全屏和行模式两个前端共用的接口
import { createFullScreen } from './fullscreen.ts';
import { EOF, InputQueue } from './input.ts';
import { buildSystemPrompt, loadInstructions } from './instructions.ts';   // Day 10：项目说明（AGENTS.md）
import { setNoticeHandler } from './llm.ts';
import { registerLookupTools } from './lookup.ts';   // Day 12：代码搜索与网页抓取
import { createMcp } from './mcp-setup.ts';
import { loadMemory, recallMemory, registerMemoryTools } from './memory.ts';
import { loadPermissions, setupPermissions, trustNeeds, untrusted, type PermissionConfig } from './permissions.ts';
import { createPlain } from './plain.ts';
import { forceTodo, registerPlanningTools } from './planning.ts';
import { loadRag, registerRagTools } from './rag.ts';
import { distrustDotEnv } from './redact.ts';
import { visible } from './screen-text.ts';
import { Sessions } from './sessions.ts';
import { registerShellTools } from './shell.ts';
import { activeSkill, listSkills, loadSkills } from './skills.ts';
import { traceStatus } from './trace.ts';
import { trustFolder } from './trust.ts';
import { UsageMeter } from './usage.ts';
import { setForeignNotice } from './written.ts';

const loaded = loadConfig();
let cfg = loaded.cfg;   // 信任问题答完才定下（settleDotEnv 返回新的一份）：Chat、面板每次都来取
let permissions = loadPermissionsOrExit();
// 启动顺序：配置 → 权限 → 记忆与知识库 → Chat → 技能 → MCP 配置 → 前端 → 信任 → 项目说明 → MCP 服务器（后台连接）。
// 根目录来自权限、项目说明和 MCP 服务器都要等信任问题答完
let instructions = '';
try {
    loadMemory();
    loadRag();
} catch (e) {
    console.error(visible((e as Error).message));   // 报错里已经说了读的是哪个文件、坏在哪里
    process.exit(1);
}
let recall = '';   // Day 13：这一轮召回的记忆（turn 开头按用户原话更新），放进系统提示
const chat = new Chat(() => cfg);
// 注册的先后就是工具在请求里、在 /help 里的顺序
registerShellTools();
registerFileTools();
chat.setSystemPrompt(() => buildSystemPrompt({ agents: instructions, skill: activeSkill()?.body, recall }));
const skillErrors: string[] = [];
await loadSkills((message) => skillErrors.push(message));
const sessions = new Sessions();
const queue = new InputQueue();
const usage = new UsageMeter();
let running: { controller: AbortController; done: Promise<void> } | null = null;
let exiting = false;

/** 取消正在进行的一轮；返回是否真的取消了什么。 */
function cancelTurn(): boolean {
    if (!running) return false;
    running.controller.abort();
    return true;
}

const hooks = { onCancel: cancelTurn, onExit: () => void exit() };
const fullScreen = Boolean(process.stdin.isTTY && process.stdout.isTTY);
// Day 15：读 mcp.json（写坏了也不抛错，原因记在 /mcp 里）。行模式下服务器的 stderr 暗色回显到 stderr，全屏模式下只留在 /mcp 里
const mcp = createMcp(fullScreen ? undefined : (name, line) => err('reasoning', `[mcp:${name}] ${line}`));
const plain = fullScreen ? null : createPlain(queue, hooks);
const ui: FrontEnd = plain ?? createFullScreen(queue, hooks, {
    chat, sessions, usage, mcp,
    get cfg() {
        return cfg;
    },
    get instructions() {
        return instructions;   // Day 10：面板每帧都来取：项目说明要等信任问题答完才读
    },
});
registerPlanningTools((task) => chat.delegate(task), () => ui.refresh());
chat.setForcedTool(forceTodo);
registerMemoryTools(() => ui.refresh());
registerLookupTools();   // Day 12：search、fetch
registerRagTools();   // Day 14：知识库。MCP 工具连上服务器之后才追加在最后

setNoticeHandler((text) => ui.print('system', text));
chat.setUsageListener((u) => {
    usage.add(u);
    ui.refresh();
});
// 管道输入时 Ctrl+C 是真正的 SIGINT；SIGTERM、SIGHUP 也走正常的退出流程（先回滚、再保存）
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void exit());

const BANNER = 'GeekAgent — 加固版（hardened）';
ui.print('system', BANNER);
ui.print('system', `模型：${cfg.model}　密钥发往 ${keyHost(cfg)}　当前对话：${sessions.currentId}　输入 /help 查看命令`);
if (!cfg.apiKey) ui.print('error', missingKey());   // 没有密钥也照常启动：命令都能用，要和模型对话时才报错
if (process.env.GEEKAGENT_TRACE) ui.print('system', traceStatus(false));
ui.print('system', 'MCP 服务器在 .geekagent/mcp.json 里声明，/mcp 查看状态');
ui.print('system', `技能：${listSkills().map((k) => k.name).join('、') || '无'}（/skills 查看，/use 启用，/unuse 停用）`);
for (const message of skillErrors) ui.print('error', message);
// Day 15：项目的 MCP 服务器和放宽的权限一样，要先信任这个文件夹
const trusted = await askFolderTrust();
if (!trusted) permissions = untrusted(permissions);
setupPermissions(permissions, (prompt) => ui.confirm(prompt));
try {
    instructions = loadInstructions(permissions.root);
} catch (e) {
    ui.print('error', `读取项目上下文失败：${(e as Error).message}`);
}
ui.refresh();
// Day 15：MCP 服务器在后台同时连接，命令照常立即回答；面板显示「连接中…」，连完再刷新
mcp.start(trusted, reportMcp);

async function turn(text: string): Promise<void> {
    recall = recallMemory(text);   // Day 13：先召回，再压缩、再请求
    const controller = new AbortController();
    let finish = () => {};
    running = { controller, done: new Promise((r) => (finish = r)) };
    usage.newTurn();
    ui.setBusy(true);
    try {
        // Day 15：第一次请求前等还在连接的 MCP 服务器，之后还没连上的说一句；放在这里，等待时按 Ctrl+C 是取消这一轮
        await mcp.beforeTurn((line) => ui.print('system', line));
        for await (const piece of chat.streamReply(text, controller.signal)) {
            if (piece.type === 'text' || piece.type === 'reasoning') usage.streaming(piece.text);
            else usage.live = 0;
            ui.piece(piece);
        }
        ui.endReply();
    } catch (e) {
        ui.endReply();
        if (controller.signal.aborted) ui.print('system', '（已中断，本轮已撤销）');
        else ui.print('error', `请求失败：${(e as Error).message}`);
    } finally {
        running = null;
        ui.setBusy(false);
        finish();
        ui.refresh();
    }
}

/** 退出流程：停止接收输入 → 中断并回滚正在进行的一轮 → 恢复终端 → 保存对话 → bye。 */
async function exit(): Promise<never> {
    if (exiting) process.exit(0);   // 退出途中再按一次 Ctrl+C：立即退出
    exiting = true;
    // 不再接收输入：正在等 [y/N] 的工具因此得到「否」（输入结束即拒绝），这一轮才能结束，下面的等待才不会卡住
    queue.push(EOF);
    running?.controller.abort();
    // Day 15：中断之后马上停服务器，不等这一轮结束：工具可能正等着 MCP 的响应，服务器一停它就立刻失败，
    // 这一轮才能马上结束并回滚；否则要等到那个请求超时（默认 10 秒，npx 服务器常配成 60 秒）
    const stopping = mcp.stopAll();
    await running?.done;
    await stopping;
    ui.close();
    saveOnExit();
    console.log('bye');
    return exitWhenDrained(0);
}

/** 退出前保存。 */
function saveOnExit(): void {
    try {
        const generated = sessions.nameDefault(chat.history);
        console.log(`（退出前已保存 ${sessions.save(chat.history)} 个对话到 ${visible(Sessions.path())}）`);
        if (generated) console.log(`（对话 id：${generated}——重启后先 /load 再 /open ${generated}）`);
    } catch (e) {
        rescueSessions(e as Error);
    }
}

saveOnStrayErrors();
for (;;) {
    plain?.prompt();
    const item = await queue.next();
    if (item === EOF || exiting) break;
    const line = item.trim();
    if (!line) continue;
    ui.echoUser(line);
    if (line.startsWith('/')) {
        if (!(await runCommand(line, { chat, sessions, ui, mcp }))) break;
        continue;
    }
    await turn(line);
}
// 退出流程已经在进行（Ctrl+D、信号）时不能再调用 exit()：第二次调用会跳过保存立即退出
if (!exiting) await exit();

// —— 加固：权限文件读不出来、文件夹信任、存档坏了时另存、漏网的错误 ——

/** 权限文件写错了：报错退出，不带着「全部默认」悄悄跑起来。 */
function loadPermissionsOrExit(): PermissionConfig {
    try {
        return loadPermissions();
    } catch (e) {
        console.error(visible((e as Error).message));
        process.exit(1);
    }
}

/**
 * 文件夹自己的配置（.geekagent/、.env）要启动 MCP 服务器、放宽权限、替密钥选地址、给命令加环境变量时，先问一次是否信任
 * （经前端的确认，管道里由是 y / n 的下一行回答）。返回用户是否信任：不信任时调用方把权限收紧成 untrusted()，
 * MCP 服务器一台也不启动；.env 的地址不用、变量收回（settleDotEnv，在启动任何服务器之前）。
 */
async function askFolderTrust(): Promise<boolean> {
    setForeignNotice((line) => ui.print('system', line));   // Day 8：不是你的 Agent 写的状态文件（written.ts），在信任问题之前说
    const needs = [...mcp.trustNeeds, ...trustNeeds(permissions)];
    const trusted = await trustFolder(needs, loaded.dotEnv, ui, queue);
    const settled = settleDotEnv(cfg, loaded.dotEnv, trusted);
    cfg = settled.cfg;
    if (!trusted) distrustDotEnv(loaded.cfg.apiKey);   // 它的 .env 也不再是密钥的来源（redact.ts）；这次不用的密钥照样脱敏
    for (const line of settled.lines) ui.print('system', line);
    if (trusted) return true;
    ui.print('system', '未信任此文件夹：项目的 MCP 服务器不启动，根目录仍是本文件夹，项目的 allow 规则不生效（deny 规则照常）');
    return false;
}

/**
 * 等 stdout、stderr 里已经写出的内容都交给了系统，再以 code 退出。管道的另一头读得慢时（agent | (sleep 2; cat)），
 * 回复的后半截和 bye 还排在 Node 的写缓冲里，立刻 process.exit 会把它们丢掉。空写的回调排在之前所有写入之后；
 * 读的一方已经关了管道时，回调带着错误马上回来。返回的 Promise 永远不兑现：等着它的代码不会再往下跑。
 */
function exitWhenDrained(code: number): Promise<never> {
    return new Promise(() => {
        let pending = 2;
        const done = () => {
            if (--pending === 0) process.exit(code);
        };
        process.stdout.write('', done);
        process.stderr.write('', done);
    });
}

/** Day 15：MCP 服务器全部连完后要提示的行（失败的服务器、没装下的工具……）；退出时停掉的服务器不算启动失败。 */
function reportMcp(lines: string[]): void {
    if (exiting) return;
    for (const line of lines) ui.print('error', line);
    ui.refresh();
}

/** Day 6：sessions.json 读不出来时不覆盖它：这次的对话另存到新文件，告诉用户在哪。 */
function rescueSessions(e: Error): void {
    console.error(visible(e.message));
    try {
        console.error(`（这次的对话另存到 ${visible(sessions.rescue(chat.history))}，改名为 sessions.json 后可以 /load）`);
    } catch (e) {
        console.error(`另存也失败了：${visible((e as Error).message)}`);
    }
}

/** 漏网的错误（某处 bug）：先恢复终端、保存对话，再报错退出，不让一个 bug 带走整段对话。 */
function saveOnStrayErrors(): void {
    for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
        process.on(event, (e: unknown) => {
            ui.close();
            console.error(`程序出错：${visible(e instanceof Error ? String(e.stack) : String(e))}`);
            saveOnExit();
            process.exit(1);
        });
    }
}
