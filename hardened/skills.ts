// Day 11：技能。skills/<name>/SKILL.md 给出说明和内置工具白名单，可选的 tools.ts 带来技能自己的工具。
// 同一时间只能启用一个技能；白名单既决定发给模型的工具列表，也在执行时强制检查。
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureToolPolicy } from './permissions.ts';
import { listTools, registerTool, setVisibleTools, unregisterTool, type Tool } from './tools.ts';

export interface Skill {
    name: string;
    description: string;
    whitelist: string[];   // 允许使用的内置工具；空 = 全部
    body: string;          // 技能说明，放进系统提示
    tools: Tool[];         // 技能自带的工具
}

export const SKILLS_DIR = path.join(import.meta.dirname, 'skills');
const skills = new Map<string, Skill>();
let active: Skill | null = null;

/** 解析 SKILL.md：--- 之间是头部，认 `description:` 和 `- 工具名` 列表；之后是正文。 */
export function parseSkill(name: string, text: string): Omit<Skill, 'tools'> {
    const lines = text.replace(/\r\n/g, '\n').split('\n');
    const end = headerEnd(lines);   // 缺少开头或结尾的 --- 时抛出
    let description = '';
    const whitelist: string[] = [];
    for (const line of lines.slice(1, end)) {
        const t = line.trim();
        if (t.startsWith('description:')) description = t.slice('description:'.length).trim();
        else if (t.startsWith('-')) whitelist.push(t.slice(1).trim());
        else whitelist.push(...foreignWhitelist(t));
    }
    return { name, description, whitelist, body: lines.slice(end + 1).join('\n').trim() };
}

/** 启动时扫描 skills/*；单个技能出错只跳过它，错误交给 report 显示。 */
export async function loadSkills(report: (message: string) => void): Promise<void> {
    for (const name of skillFolders()) {
        try {
            const skill = parseSkill(name, fs.readFileSync(path.join(SKILLS_DIR, name, 'SKILL.md'), 'utf8'));
            const toolsFile = path.join(SKILLS_DIR, name, 'tools.ts');
            const tools = fs.existsSync(toolsFile) ? await importedToolsOrNone(toolsFile) : [];
            skills.set(name, { ...skill, tools });
        } catch (e) {
            report(`加载技能 ${name} 失败：${(e as Error).message}`);
        }
    }
}

export function listSkills(): Skill[] {
    return [...skills.values()];
}

export function activeSkill(): Skill | null {
    return active;
}

export function useSkill(name: string): Skill {
    const skill = skills.get(name);
    if (!skill) throw new Error(`未知技能：${name}`);
    checkNoClash(skill);   // 失败时什么都不变，原来的技能照旧启用
    unuseSkill();
    for (const tool of skill.tools) registerAskingFirst(tool);
    const allowed = knownTools(skill.whitelist);
    setVisibleTools(allowed.length ? [...allowed, ...skill.tools.map((t) => t.name)] : null, name);
    active = skill;
    return skill;
}

export function unuseSkill(): void {
    if (!active) return;
    for (const tool of active.tools) unregisterTool(tool.name);
    setVisibleTools(null, '');
    active = null;
}

// —— 加固：缺目录、导入失败、头部容错、别的 Agent 的技能写法、自带工具重名与默认确认 ——

/** skills 下的文件夹，按名字排序；没有 skills 目录就没有技能。 */
function skillFolders(): string[] {
    try {
        return fs.readdirSync(SKILLS_DIR, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    } catch {
        return [];
    }
}

/** 动态导入 tools.ts 的 tools 数组。导入失败或没有导出数组时，这个技能照样可用，只是没有自带工具。 */
async function importedToolsOrNone(file: string): Promise<Tool[]> {
    return import(pathToFileURL(file).href).then((m) => (Array.isArray(m.tools) ? m.tools : []), () => []);
}

/** 头部结束的 --- 在第几行；和开头一样容忍行尾空白。缺少开头或结尾的 --- 时抛出。 */
function headerEnd(lines: string[]): number {
    if (lines[0].trim() !== '---') throw new Error('SKILL.md 必须以 --- 开头');
    const end = lines.findIndex((line, i) => i > 0 && line.trim() === '---');
    if (end === -1) throw new Error('SKILL.md 的头部缺少结束的 ---');
    return end;
}

/** 其他 Agent 常用的 `allowed-tools: a, b` 也当白名单，这样为别的 Agent 写的技能也能加载；`name:` 等其余行忽略。 */
function foreignWhitelist(line: string): string[] {
    if (!line.startsWith('allowed-tools:')) return [];
    return line.slice('allowed-tools:'.length).split(/[\s,]+/).filter(Boolean);
}

/** 白名单里只留这里真有的工具：别的 Agent 的工具名（如 Read）不存在，忽略；一个都不认识就等于没有白名单。 */
function knownTools(whitelist: string[]): string[] {
    const known = new Set(listTools().map((t) => t.name));
    return whitelist.filter((n) => known.has(n));
}

/** 先查重名再动注册表：注册到一半才失败会留下卸不掉的工具。当前技能的自带工具不算重名，它们会先被卸下。 */
function checkNoClash(skill: Skill): void {
    const taken = new Set(listTools().map((t) => t.name));
    for (const tool of active?.tools ?? []) taken.delete(tool.name);
    const clash = skill.tools.find((t) => taken.has(t.name));
    if (clash) throw new Error(`自带工具 ${clash.name} 与已有工具重名`);
}

/** 注册自带工具，默认每次执行前确认：只在内存里设默认值，不写回文件；用户文件里有条目时以文件为准。 */
function registerAskingFirst(tool: Tool): void {
    ensureToolPolicy(tool.name, 'ask');
    registerTool(tool);
}
