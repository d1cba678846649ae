// 入口：只做组装。两个终端都是 TTY 时用全屏界面，否则用行模式 REPL。
import { Chat } from './chat.ts';
import { runCommand } from './commands.ts';
import { keyHost, loadConfig, missingKey, settleDotEnv } from './config.ts';
import { registerFileTools } from './files.ts';
import type { FrontEnd } from './frontend.ts';   // Day 7：全屏和行模式两个前端共用的接口
import { createFullScreen } from './fullscreen.ts';
import { EOF, InputQueue } from './input.ts';
import { buildSystemPrompt, loadInstructions } from './instructions.ts';   // Day 10：项目说明（AGENTS.md）
import { setNoticeHandler } from './llm.ts';
import { loadMemory, registerMemoryTools } from './memory.ts';
import { loadPermissions, setupPermissions, trustNeeds, untrusted, type PermissionConfig } from './permissions.ts';
import { createPlain } from './plain.ts';
import { forceTodo, registerPlanningTools } from './planning.ts';
import { visible } from './screen-text.ts';
import { Sessions } from './sessions.ts';
import { registerShellTools } from './shell.ts';
import { activeSkill, listSkills, loadSkills } from './skills.ts';
import { traceStatus } from './trace.ts';
import { trustFolder } from './trust.ts';
import { UsageMeter } from './usage.ts';
import { setForeignNotice } from './written.ts';

const cfg = loadConfig();
let permissions = loadPermissionsOrExit();
// 启动顺序：配置 → 权限 → 记忆 → Chat → 技能 → 前端 → 信任 → 项目说明（根目录来自权限，信任问题答完才定）
let instructions = '';
try {
    loadMemory();
} catch (e) {
    console.error(visible((e as Error).message));   // 报错里已经说了读的是哪个文件、坏在哪里
    process.exit(1);
}
const chat = new Chat(cfg);
// 注册的先后就是工具在请求里、在 /help 里的顺序
registerShellTools();
registerFileTools();
chat.setSystemPrompt(() => buildSystemPrompt({ agents: instructions, skill: activeSkill()?.body }));
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
const plain = fullScreen ? null : createPlain(queue, hooks);
const ui: FrontEnd = plain ?? createFullScreen(queue, hooks, {
    cfg, chat, sessions, usage,
    get instructions() {
        return instructions;   // Day 10：面板每帧都来取：项目说明要等信任问题答完才读
    },
});
registerPlanningTools((task) => chat.delegate(task), () => ui.refresh());
chat.setForcedTool(forceTodo);
registerMemoryTools(() => ui.refresh());

setNoticeHandler((text) => ui.print('system', text));
chat.setUsageListener((u) => {
    usage.add(u);
    ui.refresh();
});
// 管道输入时 Ctrl+C 是真正的 SIGINT；SIGTERM、SIGHUP 也走正常的退出流程（先回滚、再保存）
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void exit());

const BANNER = 'GeekAgent Day 11 — 技能（day11）';
ui.print('system', BANNER);
ui.print('system', `模型：${cfg.model}　密钥发往 ${keyHost(cfg)}　当前对话：${sessions.currentId}　输入 /help 查看命令`);
if (!cfg.apiKey) ui.print('error', missingKey());   // 没有密钥也照常启动：命令都能用，要和模型对话时才报错
if (process.env.GEEKAGENT_TRACE) ui.print('system', traceStatus(false));
ui.print('system', `技能：${listSkills().map((k) => k.name).join('、') || '无'}（/skills 查看，/use 启用，/unuse 停用）`);
for (const message of skillErrors) ui.print('error', message);
permissions = await askFolderTrust();
setupPermissions(permissions, (prompt) => ui.confirm(prompt));
try {
    instructions = loadInstructions(permissions.root);
} catch (e) {
    ui.print('error', `读取项目上下文失败：${(e as Error).message}`);
}
ui.refresh();

async function turn(text: string): Promise<void> {
    const controller = new AbortController();
    let finish = () => {};
    running = { controller, done: new Promise((r) => (finish = r)) };
    usage.newTurn();
    ui.setBusy(true);
    try {
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
    if (running) {
        running.controller.abort();
        await running.done;
    }
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
        if (!(await runCommand(line, { chat, sessions, ui }))) break;
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
 * 文件夹自己的配置（.geekagent/、.env）要放宽权限、替密钥选地址、给命令加环境变量时，先问一次是否信任
 * （经前端的确认，管道里由是 y / n 的下一行回答）。返回实际生效的权限配置：不信任时收紧成 untrusted()。
 */
async function askFolderTrust(): Promise<PermissionConfig> {
    setForeignNotice((line) => ui.print('system', line));   // Day 8：不是你的 Agent 写的状态文件（written.ts），在信任问题之前说
    const trusted = await trustFolder(trustNeeds(permissions), ui, queue);
    for (const line of settleDotEnv(cfg, trusted)) ui.print('system', line);
    if (trusted) return permissions;
    ui.print('system', '未信任此文件夹：根目录仍是本文件夹，项目的 allow 规则不生效（deny 规则照常）');
    return untrusted(permissions);
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
