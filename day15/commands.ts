// 斜杠命令。每条命令先把 Chat 当前的历史同步回 Sessions（压缩可能换掉了数组对象）。
import type { Chat } from './chat.js';
import type { FrontEnd } from './frontend.js';
import { mcpStatusText, reconnectMcp, type McpManager } from './mcp-setup.js';
import { getMemories } from './memory.js';
import { PERMISSIONS_FILE } from './permissions.js';
import { formatTodos, getTodos } from './planning.js';
import { addToRag, ragStats } from './rag.js';
import { Sessions } from './sessions.js';
import { activeSkill, listSkills, unuseSkill, useSkill } from './skills.js';
import { listTools } from './tools.js';
import { undo } from './undo.js';

export interface CommandContext {
    chat: Chat;
    sessions: Sessions;
    ui: FrontEnd;
    mcp: McpManager;
}

const HELP = [
    '/help            显示帮助',
    '/reset           清空当前对话',
    '/compact         立即压缩历史（超过 GEEKAGENT_MAX_HISTORY 字符时每轮开始前也会自动压缩）',
    '/new <id>        新建对话并切换过去',
    '/sessions        列出所有对话',
    '/open <id>       切换到某个对话',
    '/save            保存所有对话到 .geekagent/sessions.json',
    '/load            从 .geekagent/sessions.json 恢复',
    '/undo            撤销最近一次确认过的 write / patch',
    '/todos           查看 TODO 清单',
    '/memory          查看长期记忆',
    '/skills          列出技能',
    '/use <name>      启用一个技能',
    '/unuse           停用当前技能',
    '/rag             查看知识库；/rag add <网址或文件>… 收录',
    '/mcp             查看 MCP 服务器和工具；/mcp reconnect <name> 重连一台',
    '/exit            保存并退出（Ctrl+D、Ctrl+C 也可以）',
    `权限配置：${PERMISSIONS_FILE}（每个工具 allow / ask / deny）`,
];

/** 执行一条命令；返回 false 表示要退出。 */
export async function runCommand(line: string, { chat, sessions, ui, mcp }: CommandContext): Promise<boolean> {
    const [name, arg, ...rest] = line.split(/\s+/);
    sessions.sync(chat.history);
    const info = (text: string) => ui.print('system', text);
    const fail = (text: string) => ui.print('error', text);
    switch (name) {
        case '/exit':
            return false;
        case '/help':
            info(HELP.join('\n'));
            info('可用工具：\n' + listTools().map((t) => `  ${t.name}  ${t.description}`).join('\n'));
            break;
        case '/reset':
            chat.reset();
            sessions.sync(chat.history);
            info('（对话历史已清空，长期记忆保留）');
            break;
        case '/compact':
            try {
                ui.print('tool', `[${await chat.compact()}]`);
            } catch (e) {
                fail(`历史压缩失败：${(e as Error).message}`);
            }
            break;
        case '/new':
            if (!arg) return info('用法：/new <id>'), true;
            try {
                chat.history = sessions.create(arg, chat.history);
                info(`（已新建并切换到对话 ${arg}）`);
            } catch (e) {
                fail(`新建失败：${(e as Error).message}`);
            }
            break;
        case '/sessions':
            info(['对话：', ...sessions.list(chat.history).map((s) => `${s.current ? '*' : ' '} ${s.id}（${s.count} 条消息）`)].join('\n'));
            break;
        case '/open':
            if (!arg) return info('用法：/open <id>'), true;
            try {
                chat.history = sessions.open(arg, chat.history);
                info(`（已切换到对话 ${arg}，${chat.history.length} 条消息）`);
            } catch (e) {
                fail(`打开失败：${(e as Error).message}`);
            }
            break;
        case '/save':
            try {
                info(`（已保存 ${sessions.save(chat.history)} 个对话到 ${Sessions.path()}）`);
            } catch (e) {
                fail((e as Error).message);
            }
            break;
        case '/load':
            try {
                const messages = sessions.load();
                if (!messages) info('还没有保存过对话');
                else {
                    chat.history = messages;
                    info(`（已从 ${Sessions.path()} 恢复 ${sessions.size} 个对话，当前：${sessions.currentId}）`);
                }
            } catch (e) {
                fail((e as Error).message);
            }
            break;
        case '/undo':
            try {
                info(`（${undo()}）`);
            } catch (e) {
                fail(`撤销失败：${(e as Error).message}`);
            }
            break;
        case '/todos':
            info(getTodos().length ? ['TODO：', ...formatTodos()].join('\n') : '（还没有 TODO）');
            break;
        case '/memory':
            // 只给用户看，不发给模型
            info(getMemories().length ? ['长期记忆：', ...getMemories().map((m, i) => `${i + 1}. ${m}`)].join('\n') : '（还没有长期记忆）');
            break;
        case '/skills': {
            const all = listSkills();
            if (all.length === 0) info('（skills/ 下还没有技能）');
            else info(['可用技能（来自 skills/，用 /use 加载）：', ...all.map((k) => `${k === activeSkill() ? '*' : ' '} ${k.name} — ${k.description}`)].join('\n'));
            break;
        }
        case '/use':
            if (!arg) return info('用法：/use <技能名>（见 /skills）'), true;
            try {
                const skill = useSkill(arg);
                const bundled = skill.tools.map((t) => t.name).join(', ') || '无';
                // 只列真正生效的名字：白名单里不认识的工具名被忽略，一个都不认识就是全部工具
                const builtins = skill.whitelist.filter((n) => listTools().some((t) => t.name === n));
                ui.print('tool', `已加载技能 ${skill.name}（自带：${bundled}；内置：${builtins.join(', ') || '全部'}）`);
            } catch (e) {
                fail(`加载失败：${(e as Error).message}`);
            }
            break;
        case '/unuse':
            unuseSkill();
            ui.print('tool', '（技能已卸载，恢复默认行为）');
            break;
        case '/rag':
            if (!arg) info(ragStats());
            else if (arg !== 'add' || rest.length === 0) info('用法：/rag 或 /rag add <网址或文件> [更多来源…]');
            else {
                for (const source of rest) {
                    try {
                        ui.print('tool', `[${await addToRag(source)}]`);
                    } catch (e) {
                        fail(`收录失败：${(e as Error).message}`);
                    }
                }
            }
            break;
        case '/mcp':
            if (!arg) info(mcpStatusText(mcp));
            else if (arg === 'reconnect' && rest[0]) {
                try {
                    info(await reconnectMcp(mcp, rest[0]));
                } catch (e) {
                    fail((e as Error).message);
                }
            } else info('用法：/mcp 或 /mcp reconnect <name>');
            break;
        default:
            info(`未知命令：${name}（输入 /help 查看）`);
    }
    ui.refresh();
    return true;
}
