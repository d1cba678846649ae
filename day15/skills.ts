// Day 11：技能。skills/<name>/SKILL.md 给出说明和内置工具白名单，可选的 tools.ts 带来技能自己的工具。
// 同一时间只能启用一个技能；白名单既决定发给模型的工具列表，也在执行时强制检查。
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureToolPolicy } from './permissions.js';
import { listTools, registerTool, setVisibleTools, unregisterTool, type Tool } from './tools.js';

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

/**
 * 解析 SKILL.md：--- 之间是头部，之后是正文。认 `description:`、`- 工具名` 列表，
 * 也认其他 Agent 常用的 `name:` 和 `allowed-tools: a, b`，这样为别的 Agent 写的技能也能加载。
 */
export function parseSkill(name: string, text: string): Omit<Skill, 'tools'> {
    const lines = text.replace(/\r\n/g, '\n').split('\n');
    if (lines[0].trim() !== '---') throw new Error('SKILL.md 必须以 --- 开头');
    const end = lines.findIndex((line, i) => i > 0 && line.trim() === '---');   // 和开头一样，容忍行尾空白
    if (end === -1) throw new Error('SKILL.md 的头部缺少结束的 ---');
    let description = '';
    const whitelist: string[] = [];
    for (const line of lines.slice(1, end)) {
        const t = line.trim();
        const value = t.slice(t.indexOf(':') + 1).trim();
        if (t.startsWith('description:')) description = value;
        else if (t.startsWith('allowed-tools:')) whitelist.push(...value.split(/[\s,]+/).filter(Boolean));
        else if (t.startsWith('-')) whitelist.push(t.slice(1).trim());
    }
    return { name, description, whitelist, body: lines.slice(end + 1).join('\n').trim() };
}

/** 启动时扫描 skills/*；单个技能出错只跳过它，错误交给 report 显示。 */
export async function loadSkills(report: (message: string) => void): Promise<void> {
    let dirs: string[] = [];
    try {
        dirs = fs.readdirSync(SKILLS_DIR, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    } catch {
        return;   // 没有 skills 目录就没有技能
    }
    for (const name of dirs) {
        try {
            const skill = parseSkill(name, fs.readFileSync(path.join(SKILLS_DIR, name, 'SKILL.md'), 'utf8'));
            const toolsFile = path.join(SKILLS_DIR, name, 'tools.ts');
            let tools: Tool[] = [];
            if (fs.existsSync(toolsFile)) {
                tools = await import(pathToFileURL(toolsFile).href).then((m) => (Array.isArray(m.tools) ? m.tools : []), () => []);
            }
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
    // 先查重名再动注册表：注册到一半才失败会留下卸不掉的工具。失败时什么都不变，原来的技能照旧启用
    const taken = new Set(listTools().map((t) => t.name));
    for (const tool of active?.tools ?? []) taken.delete(tool.name);
    const clash = skill.tools.find((t) => taken.has(t.name));
    if (clash) throw new Error(`自带工具 ${clash.name} 与已有工具重名`);
    unuseSkill();
    for (const tool of skill.tools) {
        ensureToolPolicy(tool.name, 'ask');   // 只在内存里设默认值，不写回文件；用户文件里有条目时以文件为准
        registerTool(tool);
    }
    const known = new Set(listTools().map((t) => t.name));
    const allowed = skill.whitelist.filter((n) => known.has(n));   // 别的 Agent 的工具名（如 Read）在这里不存在，忽略
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
