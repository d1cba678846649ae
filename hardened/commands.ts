// Day 6：斜杠命令是一张表：命令名 → 参数、说明、处理函数。/help 的内容从这张表生成，后面几天往表里加命令。
// 每条命令先把 Chat 当前的历史同步回 Sessions（压缩可能换掉了数组对象）。
import type { Chat } from './chat.ts';
import type { FrontEnd } from './frontend.ts';
import { mcpStatusText, type McpManager } from './mcp-setup.ts';
import { getMemories } from './memory.ts';
import { PERMISSIONS_FILE } from './permissions.ts';
import { formatTodos, getTodos } from './planning.ts';
import { addToRag, ragStats } from './rag.ts';
import { Sessions } from './sessions.ts';
import { activeSkill, listSkills, unuseSkill, useSkill } from './skills.ts';
import { displayWidth } from './term.ts';
import { listTools } from './tools.ts';
import { traceStatus } from './trace.ts';
import { undo } from './undo.ts';

export interface CommandContext {
    chat: Chat;
    sessions: Sessions;
    ui: FrontEnd;
    mcp: McpManager;
}

// 处理函数拿到的：上下文、命令名后面按空白拆开的参数、三个输出的简写（badParams 打印这条命令的「用法：」）
interface Call extends CommandContext {
    args: string[];
    info(text: string): void;
    fail(text: string): void;
    badParams(): void;
}

interface Command {
    params?: string;    // 参数的写法，例如 '<id>'：/help 和参数不对时的「用法：」都用它
    help: string;
    failure?: string;   // 处理函数抛错时，错误信息前面加上「failure：」
    run(call: Call): void | boolean | Promise<void>;   // 返回 false 表示要退出
}

const COMMANDS: Record<string, Command> = {
    '/help': {
        help: '显示帮助',
        run({ info }) {
            info(helpText());
            info('可用工具：\n' + listTools().map((t) => `  ${t.name}  ${t.description}`).join('\n'));
        },
    },
    '/reset': {
        help: '清空当前对话',
        run({ chat, sessions, info }) {
            chat.reset();
            sessions.sync(chat.history);
            info('（对话历史已清空，长期记忆保留）');   // Day 10：长期记忆在磁盘上，/reset 不动它
        },
    },
    '/compact': {
        help: '立即压缩历史（超过 GEEKAGENT_MAX_HISTORY 字符时每轮开始前也会自动压缩）',
        failure: '历史压缩失败',
        async run({ chat, ui }) {
            ui.print('tool', `[${await chat.compact()}]`);
        },
    },
    '/new': {
        params: '<id>',
        help: '新建对话并切换过去',
        failure: '新建失败',
        run({ chat, sessions, info, badParams, args: [id] }) {
            if (!id) return badParams();
            chat.history = sessions.create(id, chat.history);
            info(`（已新建并切换到对话 ${id}）`);
        },
    },
    '/sessions': {
        help: '列出所有对话',
        run({ chat, sessions, info }) {
            info(['对话：', ...sessions.list(chat.history).map((s) => `${s.current ? '*' : ' '} ${s.id}（${s.count} 条消息）`)].join('\n'));
        },
    },
    '/open': {
        params: '<id>',
        help: '切换到某个对话',
        failure: '打开失败',
        run({ chat, sessions, info, badParams, args: [id] }) {
            if (!id) return badParams();
            chat.history = sessions.open(id, chat.history);
            info(`（已切换到对话 ${id}，${chat.history.length} 条消息）`);
        },
    },
    '/save': {
        help: '保存所有对话到 .geekagent/sessions.json',
        run({ chat, sessions, info }) {
            info(`（已保存 ${sessions.save(chat.history)} 个对话到 ${Sessions.path()}）`);
        },
    },
    '/load': {
        help: '从 .geekagent/sessions.json 恢复',
        run({ chat, sessions, info }) {
            const messages = sessions.load();
            if (!messages) return info('还没有保存过对话');
            chat.history = messages;
            info(`（已从 ${Sessions.path()} 恢复 ${sessions.size} 个对话，当前：${sessions.currentId}）`);
            if (sessions.repaired) info(`（存档里有 ${sessions.repaired} 条消息格式不对，已修正后载入；文件本身没有改动）`);
        },
    },
    '/undo': {
        help: '撤销最近一次确认过的 write / patch',
        failure: '撤销失败',
        run({ info }) {
            info(`（${undo()}）`);
        },
    },
    // Day 14：知识库
    '/rag': {
        params: '[add <网址或文件>…]',
        help: '查看知识库，或不经模型直接收录',
        async run({ ui, info, fail, badParams, args: [sub, ...sources] }) {
            if (!sub) return info(ragStats());
            if (sub !== 'add' || sources.length === 0) return badParams();
            // 一个来源失败不影响其余的
            for (const source of sources) {
                try {
                    ui.print('tool', `[${await addToRag(source)}]`);
                } catch (e) {
                    fail(`收录失败：${(e as Error).message}`);
                }
            }
        },
    },
    // Day 9–11：查看 TODO 清单、长期记忆，列出、启用、停用技能
    '/todos': {
        help: '查看 TODO 清单',
        run({ info }) {
            info(getTodos().length ? ['TODO：', ...formatTodos()].join('\n') : '（还没有 TODO）');
        },
    },
    '/memory': {
        help: '查看长期记忆',
        // 只给用户看，不发给模型
        run({ info }) {
            info(getMemories().length ? ['长期记忆：', ...getMemories().map((m, i) => `${i + 1}. ${m}`)].join('\n') : '（还没有长期记忆）');
        },
    },
    '/skills': {
        help: '列出技能',
        run({ info }) {
            const all = listSkills();
            if (all.length === 0) return info('（skills/ 下还没有技能）');
            info(['可用技能（来自 skills/，用 /use 加载）：', ...all.map((k) => `${k === activeSkill() ? '*' : ' '} ${k.name} — ${k.description}`)].join('\n'));
        },
    },
    '/use': {
        params: '<技能名>',
        help: '启用一个技能（见 /skills）',
        failure: '加载失败',
        run({ ui, badParams, args: [name] }) {
            if (!name) return badParams();
            const skill = useSkill(name);
            const bundled = skill.tools.map((t) => t.name).join(', ') || '无';
            // 只列真正生效的名字：白名单里不认识的工具名被忽略，一个都不认识就是全部工具
            const builtins = skill.whitelist.filter((n) => listTools().some((t) => t.name === n));
            ui.print('tool', `已加载技能 ${skill.name}（自带：${bundled}；内置：${builtins.join(', ') || '全部'}）`);
        },
    },
    '/unuse': {
        help: '停用当前技能',
        run({ ui }) {
            unuseSkill();
            ui.print('tool', '（技能已卸载，恢复默认行为）');
        },
    },
    // Day 15：MCP 服务器的状态与重连
    '/mcp': {
        params: '[reconnect <name>]',
        help: '查看 MCP 服务器和工具，或重连一台',
        async run({ mcp, info, badParams, args: [sub, name] }) {
            if (!sub) {
                // 刚启动就敲 /mcp 时，和第一次请求模型一样等还在连接的服务器（从启动算起最多 10 秒），免得只看到「连接中…」；别的命令不等
                await mcp.ready();
                return info(mcpStatusText(mcp));
            }
            if (sub !== 'reconnect' || !name) return badParams();
            info(await mcp.reconnect(name));
        },
    },
    '/trace': {
        help: '开关协议追踪（和模型、MCP 服务器收发的原文，写入 .geekagent/trace.log）',
        run({ info }) {
            info(traceStatus(true));
        },
    },
    '/exit': {
        help: '保存并退出（Ctrl+D、Ctrl+C 也可以）',
        run: () => false,
    },
};

// 每条命令一行：命令名和参数，后面是说明
function helpText(): string {
    const lines = Object.entries(COMMANDS).map(([name, c]) => aligned(synopsis(name, c)) + c.help);
    return [...lines, `权限配置：${PERMISSIONS_FILE}（每个工具 allow / ask / deny）`].join('\n');
}

/** 命令名加参数的写法，如 /new <id>。 */
function synopsis(name: string, command: Command): string {
    return command.params ? `${name} ${command.params}` : name;
}

/** 执行一条命令；返回 false 表示要退出。 */
export async function runCommand(line: string, context: CommandContext): Promise<boolean> {
    const [name, ...args] = line.split(/\s+/);
    const { chat, sessions, ui } = context;
    sessions.sync(chat.history);
    const command = COMMANDS[name];
    const call: Call = {
        ...context,
        args,
        info: (text) => ui.print('system', text),
        fail: (text) => ui.print('error', text),
        badParams: () => call.info(`用法：${synopsis(name, command)}`),
    };
    if (!command) call.info(`未知命令：${name}（输入 /help 查看）`);
    else if ((await runReporting(command, call)) === false) return false;
    ui.refresh();
    return true;
}

// —— 加固：命令出错时报告，REPL 照常继续；/help 按显示宽度对齐 ——

/** 所有命令共用这一处 try/catch：错误信息前面加上这条命令的 failure（有的话），不让一条命令的错误结束程序。 */
async function runReporting(command: Command, call: Call): Promise<void | boolean> {
    try {
        return await command.run(call);
    } catch (e) {
        const message = (e as Error).message;
        call.fail(command.failure ? `${command.failure}：${message}` : message);
    }
}

/** 命令名和参数占 17 列，按显示宽度算（汉字占两列）；更长的后面空两格。 */
function aligned(label: string): string {
    return `${label}  ` + ' '.repeat(Math.max(0, 15 - displayWidth(label)));
}
