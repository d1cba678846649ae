// 第 11 天：技能。用学习者自己文件夹里的 skills/explore/SKILL.md（照教程写的只读技能）：只读它的说明和白名单，不碰它的代码。
import fs from 'node:fs';
import path from 'node:path';
import { call, tools } from '../../fake-model/replies.ts';
import { ends, requestFor, showMessages, systemText, toolNames, toolResult } from '../look.ts';
import { Miss, type Check, type Scenario } from '../types.ts';

const SECTION = 'day11/README.md#第-11-天技能';
const BEFORE = '你好';
const AFTER = '看看这个目录有什么';
const DELETE = '顺手把 build 目录删了';

interface ExploreSkill { whitelist: string[]; bodyLine: string }

// SKILL.md：--- 之间的头部里「- 工具名」是白名单，头部之后是说明；取说明的第一行非空文字去系统提示里找
function exploreSkill(entry: string): ExploreSkill {
    const file = path.join(path.dirname(entry), 'skills', 'explore', 'SKILL.md');
    if (!fs.existsSync(file)) {
        throw new Miss(`技能文件 ${path.relative(process.cwd(), file)}（照 day11/skills/explore/SKILL.md 写的只读技能）`, '文件不存在');
    }
    const lines = fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n').split('\n');
    const end = lines.indexOf('---', 1);
    const whitelist = lines.slice(1, Math.max(end, 1)).map((l) => l.trim()).filter((l) => l.startsWith('-')).map((l) => l.slice(1).trim());
    const bodyLine = lines.slice(end + 1).map((l) => l.trim()).find(Boolean) ?? '';
    if (lines[0].trim() !== '---' || end < 0 || whitelist.length === 0 || !bodyLine) {
        throw new Miss('SKILL.md 以 --- 开头的头部里有「- 工具名」白名单，头部之后是说明', lines.slice(0, 8).join('\n'));
    }
    return { whitelist, bodyLine };
}

// 模型硬要调用白名单外的 run_shell：后面多给两个 y，答了确认的 Agent 就真的删了
const SKILL: Scenario = {
    lines: [BEFORE, '/use explore', AFTER, DELETE, 'y', 'y', '/exit'],
    files: { 'build/out.txt': '构建产物\n' },
    model: { [DELETE]: tools(call('call_shell_1', 'run_shell', { command: 'rm -rf build' })) },
    refuses: true,
};

export const checks: Check[] = [
    {
        day: 11,
        name: '/use explore 之后，技能说明进了系统提示',
        hint: '/use <技能名> 读 skills/<技能名>/SKILL.md，把头部之后的说明拼进之后每个请求的 system 消息',
        section: SECTION,
        scenario: SKILL,
        expect(run) {
            const skill = exploreSkill(run.entry);
            const before = requestFor(run, BEFORE);
            const after = requestFor(run, AFTER);
            if (!systemText(after).includes(skill.bodyLine) || systemText(before).includes(skill.bodyLine)) {
                throw new Miss(`/use explore 之后的请求（之前的没有），system 消息里有技能说明「${skill.bodyLine}」`, `之前的 system 消息：${ends(systemText(before).replace(/\s+/g, ' '))}\n之后的 system 消息：${ends(systemText(after).replace(/\s+/g, ' '))}`);
            }
        },
    },
    {
        day: 11,
        name: '技能启用后，请求只带白名单里的工具',
        hint: '启用技能时记下它的白名单；发给模型的 tools 只放白名单里的工具',
        section: SECTION,
        scenario: SKILL,
        expect(run) {
            const skill = exploreSkill(run.entry);
            const names = toolNames(requestFor(run, AFTER));
            const extra = names.filter((n) => !skill.whitelist.includes(n));
            if (names.length === 0 || extra.length > 0) {
                throw new Miss(`/use explore 之后请求里的工具都在白名单 ${skill.whitelist.join('、')} 里`, `请求里的工具：${names.join('、') || '（没有）'}`);
            }
        },
    },
    {
        day: 11,
        name: '白名单外的工具在执行时也被拒绝（模型硬要调用 run_shell）',
        hint: '执行工具之前（在问用户确认之前）再查一遍白名单：不在里面的直接返回「权限拒绝」之类的结果，不执行、也不问',
        section: SECTION,
        optional: true,   // 原教程只在发给模型的工具清单上筛；执行时再查一遍是本仓库多做的
        scenario: SKILL,
        expect(run) {
            exploreSkill(run.entry);
            const result = toolResult(run, 'call_shell_1');
            if (!fs.existsSync(path.join(run.dir, 'build', 'out.txt'))) {
                throw new Miss('启用 explore 时，模型调用 run_shell「rm -rf build」不执行，build/ 还在', `build/ 被删了；工具结果：${result ?? '（没有）'}`);
            }
            if (result === undefined) throw new Miss('被拒绝的调用也有一条 tool 消息回到对话里', showMessages(run.requests.at(-1)));
        },
    },
];
