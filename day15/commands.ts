// Day 6：斜杠命令是一张表：命令名 → 参数的写法、说明、处理函数。/help 从表里生成，加一条命令就是往表里加一项。
import type { Chat } from './chat.ts';
import type { FrontEnd } from './frontend.ts';
import { getMemories } from './memory.ts';   // Day 9–11：/todos、/memory、/skills、/use、/unuse
import { mcpStatus } from './mcp-setup.ts';   // Day 15：/mcp
import { PERMISSIONS_FILE } from './permissions.ts';
import { formatTodos } from './planning.ts';
import { ragStats } from './rag.ts';   // Day 14：/rag
import { SESSIONS_FILE, type Sessions } from './sessions.ts';
import { activeSkill, listSkills, unuseSkill, useSkill } from './skills.ts';
import { listTools } from './tools.ts';
import { undo } from './undo.ts';

export interface CommandContext {
    chat: Chat;
    sessions: Sessions;
    ui: FrontEnd;
}

interface Command {
    usage?: string;   // 参数的写法，比如 '<id>'：有它的命令不带参数时，回答「用法：…」
    help: string;
    run(ctx: CommandContext, arg: string): void | 'exit' | Promise<void>;   // 'exit'：要退出
}

const say = (ctx: CommandContext, text: string) => ctx.ui.print('system', text);

const COMMANDS: Record<string, Command> = {
    '/help': {
        help: '显示帮助',
        run(ctx) {
            say(ctx, helpText());
            say(ctx, `可用工具：\n${listTools().map((t) => `  ${t.name}  ${t.description}`).join('\n')}`);
        },
    },
    '/reset': {
        help: '清空当前对话',
        run(ctx) {
            ctx.chat.reset();
            say(ctx, '（对话历史已清空，长期记忆保留）');   // Day 10：长期记忆不在对话里
        },
    },
    '/compact': {   // Day 5
        help: '立即压缩历史（超过 GEEKAGENT_MAX_HISTORY 个字符时，每轮开始前也会自动压缩）',
        async run(ctx) {
            ctx.ui.print('tool', `[${await ctx.chat.compact(new AbortController().signal)}]`);
        },
    },
    '/new': {
        usage: '<id>',
        help: '新建对话并切换过去',
        run(ctx, id) {
            ctx.chat.history = ctx.sessions.create(id, ctx.chat.history);
            say(ctx, `（已新建并切换到对话 ${id}）`);
        },
    },
    '/open': {
        usage: '<id>',
        help: '切换到某个对话',
        run(ctx, id) {
            ctx.chat.history = ctx.sessions.open(id, ctx.chat.history);
            say(ctx, `（已切换到对话 ${id}，${ctx.chat.history.length} 条消息）`);
        },
    },
    '/sessions': {
        help: '列出所有对话（* 是当前的）',
        run: (ctx) => say(ctx, ['对话：', ...ctx.sessions.list(ctx.chat.history)].join('\n')),
    },
    '/save': {
        help: `保存所有对话到 ${SESSIONS_FILE}（退出时也会保存）`,
        run: (ctx) => say(ctx, `（已保存 ${ctx.sessions.save(ctx.chat.history)} 个对话到 ${SESSIONS_FILE}）`),
    },
    '/load': {
        help: `从 ${SESSIONS_FILE} 恢复所有对话`,
        run(ctx) {
            const messages = ctx.sessions.load();
            if (!messages) return say(ctx, '还没有保存过对话');
            ctx.chat.history = messages;
            say(ctx, `（已恢复 ${ctx.sessions.size} 个对话，当前：${ctx.sessions.currentId}，${messages.length} 条消息）`);
        },
    },
    '/undo': {   // Day 8
        help: '撤销最近一次写入（write / patch）',
        run: (ctx) => say(ctx, `（${undo()}）`),
    },
    '/todos': {   // Day 9：规划
        help: '查看 TODO 清单',
        run: (ctx) => say(ctx, formatTodos().length ? ['TODO：', ...formatTodos()].join('\n') : '（还没有 TODO）'),
    },
    '/memory': {   // Day 10：只给你看，不发给模型
        help: '查看长期记忆',
        run: (ctx) => say(ctx, getMemories().length ? ['长期记忆：', ...getMemories().map((m, i) => `${i + 1}. ${m}`)].join('\n') : '（还没有长期记忆）'),
    },
    '/skills': {   // Day 11：技能
        help: '列出技能（* 是启用着的）',
        run(ctx) {
            const lines = listSkills().map((k) => `${k === activeSkill() ? '*' : ' '} ${k.name} — ${k.description}`);
            say(ctx, lines.length ? ['技能（/use 启用）：', ...lines].join('\n') : '（skills/ 下还没有技能）');
        },
    },
    '/use': {
        usage: '<name>',
        help: '启用一个技能：说明进系统提示，只留白名单里的工具',
        run(ctx, name) {
            const skill = useSkill(name);
            const own = skill.tools.map((t) => t.name).join(', ') || '无';
            say(ctx, `已启用技能 ${skill.name}（自带：${own}；内置：${skill.whitelist.join(', ') || '全部'}）`);
        },
    },
    '/unuse': {
        help: '停用当前技能，恢复全部工具',
        run(ctx) {
            unuseSkill();
            say(ctx, '（技能已停用，恢复全部工具）');
        },
    },
    '/rag': {   // Day 14：知识库
        help: '查看知识库',
        run: (ctx) => say(ctx, ragStats()),
    },
    '/mcp': {   // Day 15：MCP
        help: '查看 MCP 服务器和它们的工具',
        run: (ctx) => say(ctx, mcpStatus()),
    },
    '/exit': {
        help: '保存并退出（Ctrl+D 也可以；空闲时 Ctrl+C 也可以）',
        run: () => 'exit',
    },
};

function helpText(): string {
    const lines = Object.entries(COMMANDS).map(([name, c]) => `${`${name} ${c.usage ?? ''}`.padEnd(16)}${c.help}`);
    return [...lines, `权限表：${PERMISSIONS_FILE}（每个工具 allow / ask / deny，见第 8 天）`].join('\n');
}

/** 执行一条命令；返回 'exit' 表示要退出。命令出错只打印一行（命令名加原因），REPL 照常继续。 */
export async function runCommand(line: string, ctx: CommandContext): Promise<'exit' | void> {
    const [name, arg = ''] = line.split(/\s+/);
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) return say(ctx, `未知命令：${name}（输入 /help 查看）`);
    if (command.usage && !arg) return say(ctx, `用法：${name} ${command.usage}`);
    try {
        return await command.run(ctx, arg);
    } catch (e) {
        ctx.ui.print('error', `${name} 失败：${(e as Error).message}`);
    }
}

/** Day 6：退出前保存所有对话。存档读不出来时不覆盖它（sessions.ts），这次的对话另存一份，一条也不丢。 */
export function saveOnExit(ctx: CommandContext): void {
    try {
        say(ctx, `（退出前已保存 ${ctx.sessions.save(ctx.chat.history)} 个对话到 ${SESSIONS_FILE}）`);
    } catch (e) {
        ctx.ui.print('error', (e as Error).message);
        const copy = SESSIONS_FILE.replace('.json', `-${Date.now()}.json`);
        ctx.sessions.save(ctx.chat.history, copy);
        say(ctx, `（这次的对话另存到了 ${copy}：修好原来的文件，或者把这份改名成 sessions.json，再 /load）`);
    }
}
