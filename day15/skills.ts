// Day 11：技能。skills/<名字>/ 一个文件夹：SKILL.md 里 --- 之间的头部写一句 description 和「- 工具名」白名单，头部之后是说明；
// 可选的 tools.ts 导出 tools 数组，带来技能自己的工具。/use 启用一个：说明进系统提示，白名单决定请求里发哪些工具，
// execTool 执行前再查一遍（tools.ts）。同一时间只启用一个：两份说明、两张白名单不会打架。
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureToolPolicy } from './permissions.ts';
import { confirm, listTools, registerTool, setVisibleTools, unregisterTool, type Tool } from './tools.ts';

export interface Skill {
    name: string;
    description: string;
    whitelist: string[];   // 启用时还能用的内置工具；空 = 全部
    body: string;          // 说明，进系统提示
    tools: Tool[];         // 自带的工具
}

// 技能只从代码旁边的 skills/ 读，不从工作目录读：克隆来的仓库带不进一个会被 import、以你的身份运行的 tools.ts
const SKILLS_DIR = path.join(import.meta.dirname, 'skills');
const skills = new Map<string, Skill>();
let active: Skill | null = null;

/** 启动时扫描 skills/ 下的每个文件夹，按名字排序。一个技能坏了只跳过它：返回要告诉你的几行。 */
export async function loadSkills(): Promise<string[]> {
    const problems: string[] = [];
    const folders = fs.existsSync(SKILLS_DIR) ? fs.readdirSync(SKILLS_DIR, { withFileTypes: true }).filter((d) => d.isDirectory()) : [];
    for (const name of folders.map((d) => d.name).sort()) {
        try {
            const skill = parseSkill(name, fs.readFileSync(path.join(SKILLS_DIR, name, 'SKILL.md'), 'utf8'));
            // 自带的工具：动态 import 技能文件夹里的 tools.ts。.ts 文件照样能 import：Node 22.18 起自己去掉类型，Node 20 上由 tsx 处理
            const file = path.join(SKILLS_DIR, name, 'tools.ts');
            if (fs.existsSync(file)) {
                const exported = (await import(pathToFileURL(file).href)).tools;
                if (!Array.isArray(exported)) throw new Error('tools.ts 要导出数组 tools');
                skill.tools = exported;
            }
            skills.set(name, skill);
        } catch (e) {
            problems.push(`技能 ${name} 没有加载：${(e as Error).message}`);
        }
    }
    return problems;
}

/** SKILL.md：第一行 ---，到下一个 --- 是头部：认 description: 和「- 工具名」，别的行（tools:）不管；之后是说明。 */
function parseSkill(name: string, text: string): Skill {
    const lines = text.replace(/\r\n/g, '\n').split('\n');
    const end = lines.findIndex((line, i) => i > 0 && line.trim() === '---');
    if (lines[0].trim() !== '---' || end === -1) throw new Error('SKILL.md 要以 --- 开头，头部以 --- 结束');
    const header = lines.slice(1, end).map((line) => line.trim());
    return {
        name,
        description: header.find((line) => line.startsWith('description:'))?.slice('description:'.length).trim() ?? '',
        whitelist: header.filter((line) => line.startsWith('-')).map((line) => line.slice(1).trim()),
        body: lines.slice(end + 1).join('\n').trim(),
        tools: [],
    };
}

export function listSkills(): Skill[] {
    return [...skills.values()];
}

export function activeSkill(): Skill | null {
    return active;
}

/** /use：换成这个技能。要么整个换好，要么什么都不变（自带工具重名时原来的技能照旧启用）。 */
export function useSkill(name: string): Skill {
    const skill = skills.get(name);
    if (!skill) throw new Error(`没有名为 ${name} 的技能（/skills 列出所有技能）`);
    // 先查重名再动注册表：注册到一半才失败，会留下卸不掉的工具。当前技能自带的工具马上要卸下，不算重名
    const leaving = new Set(active?.tools.map((t) => t.name));
    const clash = skill.tools.find((t) => listTools().some((u) => u.name === t.name && !leaving.has(u.name)));
    if (clash) throw new Error(`自带工具 ${clash.name} 和已有的工具重名`);
    unuseSkill();
    for (const tool of skill.tools) registerAskingFirst(skill.name, tool);
    setVisibleTools(skill.whitelist.length ? [...skill.whitelist, ...skill.tools.map((t) => t.name)] : null, name);
    active = skill;
    return skill;
}

/** /unuse：撤下自带工具，全部工具重新可见，说明不再进系统提示。 */
export function unuseSkill(): void {
    if (!active) return;
    for (const tool of active.tools) unregisterTool(tool.name);
    setVisibleTools(null, '');
    active = null;
}

/**
 * 自带工具是技能作者写的代码，默认每次先问：策略缺省是 ask（ensureToolPolicy 只设默认，你在 GeekAgent.json 里写的照样优先；
 * 克隆来的项目要把它设成 allow，得先过第 8 天的信任问题），执行前经 confirm() 问一句——权限表 allow 它时 confirm() 直接同意，
 * deny 时 execTool 根本不调用它。
 */
function registerAskingFirst(skill: string, tool: Tool): void {
    ensureToolPolicy(tool.name, 'ask');
    registerTool({
        ...tool,
        async run(args, signal) {
            if (!(await confirm(`即将执行技能 ${skill} 自带的工具 ${tool.name}，参数：${JSON.stringify(args)}`))) return '已取消执行';
            return tool.run(args, signal);
        },
    });
}
