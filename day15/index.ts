// 入口：只做组装。两个终端都是 TTY 时用全屏界面，否则用行模式 REPL。
import { Chat } from './chat.js';
import { err } from './color.js';
import { runCommand } from './commands.js';
import { loadConfig } from './config.js';
import { registerFileTools } from './files.js';
import type { FrontEnd } from './frontend.js';
import { createFullScreen } from './fullscreen.js';
import { EOF, InputQueue } from './input.js';
import { buildSystemPrompt, loadInstructions } from './instructions.js';
import { setNoticeHandler } from './llm.js';
import { registerLookupTools } from './lookup.js';
import { forceKillAll } from './mcp-process.js';
import { createMcp, startMcp } from './mcp-setup.js';
import { loadMemory, recallMemory, registerMemoryTools } from './memory.js';
import { loadPermissions, setupPermissions, trustNeeds, untrusted, type PermissionConfig } from './permissions.js';
import { createPlain } from './plain.js';
import { forceTodo, registerPlanningTools } from './planning.js';
import { loadRag, registerRagTools } from './rag.js';
import { visible } from './screen-text.js';
import { Sessions } from './sessions.js';
import { registerShellTools } from './shell.js';
import { activeSkill, listSkills, loadSkills } from './skills.js';
import { traceStatus } from './trace.js';
import { TRUST_FILE, trustFolder } from './trust.js';
import { UsageMeter } from './usage.js';

const cfg = loadConfig();
let permissions: PermissionConfig;
try {
    permissions = loadPermissions();
} catch (e) {
    console.error(visible((e as Error).message));
    process.exit(1);
}
// 启动顺序：配置 → 权限 → 记忆 → Chat → 技能 → 前端 → 信任 → 项目说明（根目录来自权限，信任问题答完才定）
let instructions = '';
try {
    loadMemory();
    loadRag();
} catch (e) {
    console.error(`读取项目上下文失败：${visible((e as Error).message)}`);
    process.exit(1);
}
const fullScreen = Boolean(process.stdin.isTTY && process.stdout.isTTY);
// 行模式下服务器的 stderr 以暗色回显到 stderr；全屏模式下只留在 /mcp 里，不弄花屏幕。
// 用 err 而不是 paint：颜色要看 stderr 是不是终端（paint 看的是 stdout）。mcp.json 写坏了也不抛错：原因记在 /mcp 里
const mcp = createMcp(fullScreen ? undefined : (name, line) => err('reasoning', `[mcp:${name}] ${line}`));
let recall = '';
const chat = new Chat(cfg);
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
const plain = fullScreen ? null : createPlain(queue, hooks);
const ui: FrontEnd = plain ?? createFullScreen(queue, hooks, {
    cfg, chat, sessions, usage, mcp,
    get instructions() {
        return instructions;   // 面板每帧都来取：项目说明要等信任问题答完才读
    },
});
registerPlanningTools((task) => chat.delegate(task), () => ui.refresh());
registerMemoryTools(() => ui.refresh());
registerLookupTools();
registerRagTools();   // MCP 工具连上服务器之后才追加在最后
chat.setForcedTool(forceTodo);

setNoticeHandler((text) => ui.print('system', text));
chat.setUsageListener((u) => {
    usage.add(u);
    ui.refresh();
});
// 管道输入时 Ctrl+C 是真正的 SIGINT；SIGTERM、SIGHUP 也走正常的退出流程（先回滚、再保存）
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void exit());

const BANNER = 'GeekAgent Day 15 — MCP 工具接入（day15）';
ui.print('system', BANNER);
ui.print('system', `模型：${cfg.model}　当前对话：${sessions.currentId}　输入 /help 查看命令`);
if (process.env.GEEKAGENT_TRACE) ui.print('system', traceStatus(false));
ui.print('system', 'MCP 服务器在 .geekagent/mcp.json 里声明，/mcp 查看状态');
ui.print('system', `技能：${listSkills().map((k) => k.name).join('、') || '无'}（/skills 查看，/use 启用，/unuse 停用）`);
for (const message of skillErrors) ui.print('error', message);
// 文件夹自己的配置要启动 MCP 服务器或放宽权限时，先问一次是否信任（经前端的确认，管道里由下一行回答）
const needs = [...mcp.trustNeeds, ...trustNeeds(permissions)];
if (!(await trustFolder(needs, (q) => ui.confirm(q), (line) => ui.print('error', line)))) {
    permissions = untrusted(permissions);
    mcp.untrusted = true;
    ui.print('system', `未信任此文件夹：项目的 MCP 服务器不启动，根目录仍是本文件夹，项目的 allow 规则不生效（deny 规则照常）；删掉 ${TRUST_FILE} 里它的那一项可重新询问`);
}
setupPermissions(permissions, (prompt) => ui.confirm(prompt));
try {
    instructions = loadInstructions(permissions.root);
} catch (e) {
    ui.print('error', `读取项目上下文失败：${(e as Error).message}`);
}
ui.refresh();

async function turn(text: string): Promise<void> {
    recall = recallMemory(text);   // Day 13：先召回，再压缩、再请求
    const controller = new AbortController();
    let finish = () => {};
    running = { controller, done: new Promise((r) => (finish = r)) };
    usage.newTurn();
    ui.setBusy(true);
    try {
        // 第一次请求前最多等几秒还在连接的 MCP 服务器（之后是已完成的 Promise）；放在这里，等待时按 Ctrl+C 是取消这一轮
        await mcpReady;
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
    if (exiting) {
        forceKillAll();   // 退出途中再按一次 Ctrl+C：先杀掉所有 MCP 进程组，立即退出
        process.exit(0);
    }
    exiting = true;
    // 不再接收输入：正在等 [y/N] 的工具因此得到「否」（输入结束即拒绝），这一轮才能结束，下面的等待才不会卡住
    queue.push(EOF);
    running?.controller.abort();
    // 中断之后马上停服务器，不等这一轮结束：工具可能正等着 MCP 的响应，服务器一停它就立刻失败，
    // 这一轮才能马上结束并回滚；否则要等到那个请求超时（默认 10 秒，npx 服务器常配成 60 秒）
    const stopping = mcp.stopAll();
    await running?.done;
    await stopping;
    ui.close();
    saveOnExit();
    console.log('bye');
    process.exit(0);
}

/** 退出前保存。sessions.json 读不出来时不覆盖它，这次的对话另存到新文件并告诉用户在哪。 */
function saveOnExit(): void {
    const say = (text: string) => console.log(text);
    try {
        const generated = sessions.nameDefault(chat.history);
        say(`（退出前已保存 ${sessions.save(chat.history)} 个对话到 ${Sessions.path()}）`);
        if (generated) say(`（对话 id：${generated}——重启后先 /load 再 /open ${generated}）`);
    } catch (e) {
        console.error(visible((e as Error).message));
        try {
            console.error(`（这次的对话另存到 ${sessions.rescue(chat.history)}，改名为 sessions.json 后可以 /load）`);
        } catch (e) {
            console.error(`另存也失败了：${visible((e as Error).message)}`);
        }
    }
}

// 漏网的错误（某处 bug）：先恢复终端、保存对话，再报错退出，不让一个 bug 带走整段对话
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
    process.on(event, (e: unknown) => {
        ui.close();
        console.error(`程序出错：${visible(e instanceof Error ? String(e.stack) : String(e))}`);
        saveOnExit();
        process.exit(1);
    });
}

// MCP 服务器在后台并发连接，命令照常立即回答；面板显示「连接中…」，连完再刷新
const mcpReady = startMcp(mcp, (lines) => {
    if (exiting) return;   // 退出时停掉的服务器不算启动失败
    for (const line of lines) ui.print('error', line);
    ui.refresh();
});
ui.refresh();

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
// 信号已经启动了退出流程时，它还在等 MCP 服务器停下：这里再调 exit() 会被当成第二次 Ctrl+C，
// 不保存就强制退出。交给那一次走完即可。
if (!exiting) await exit();
