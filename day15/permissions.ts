// Day 8：权限。.geekagent/GeekAgent.json 规定根目录和每个工具的策略：
//   { "root": "..", "tools": { "run_shell": "ask", "run_*": "deny", "*": "ask" } }
// 键是工具名、「前缀*」或「*」，值是 allow（不问就执行）、ask（先问你）、deny（不执行）。root 相对于 .geekagent/ 解析，
// 所以 ".." 就是启动时的文件夹；文件工具的路径都相对根目录，出不了根目录。
import fs from 'node:fs';
import path from 'node:path';
import { visible } from './color.ts';
import { loadJson } from './storage.ts';

export type Policy = 'allow' | 'ask' | 'deny';

export const PERMISSIONS_FILE = '.geekagent/GeekAgent.json';

// 没有匹配的规则时用的默认：只读的不问，会改变东西的要问。没有列在这里的工具（以后新加的）一律拒绝：新工具要显式放行
const DEFAULTS: Record<string, Policy> = {
    get_current_time: 'allow', ls: 'allow', read: 'allow', glob: 'allow', run_shell: 'ask', write: 'ask', patch: 'ask',
    todo_write: 'allow', delegate_task: 'allow',     // Day 9：只改 Agent 自己的清单；子 Agent 没有工具，什么也碰不到
    memory_write: 'allow', memory_search: 'allow',   // Day 10：只读写 .geekagent/memory.json
    search: 'allow', fetch: 'ask',                   // Day 12：代码搜索只读、不出根目录；抓网页要联网，先问
    rag_add: 'ask', rag_search: 'allow',             // Day 14：收录会读文件或联网，先问；检索只查已收录的
};

/**
 * Day 11：运行时才注册的工具（技能自带的）用它设一条默认策略；已经有默认的不改。只是默认：GeekAgent.json 里匹配的规则照样优先，
 * 要先信任才生效的放宽（relaxations）也照旧按启动时的内置默认算——项目把它设成 allow，一样要问信任。
 */
export function ensureToolPolicy(tool: string, policy: Policy): void {
    if (!Object.hasOwn(DEFAULTS, tool)) DEFAULTS[tool] = policy;
}

export interface Rules {
    root: string;                    // 绝对路径，已经是真实路径（顺着符号链接走到底）
    tools: Record<string, Policy>;   // 文件里的规则
}

let rules: Rules = { root: here(), tools: {} };

/** 读权限表。没有文件就是空表（全用默认）；文件写错了抛出：写错的权限表不能悄悄变成「全部默认」。 */
export function loadPermissions(): Rules {
    const loaded = loadJson(PERMISSIONS_FILE);
    if (loaded.state === 'missing') return { root: here(), tools: {} };
    const bad = (why: string) => new Error(`读取 ${PERMISSIONS_FILE} 失败：${why}`);
    if (loaded.state === 'error') throw bad(loaded.message);
    const data = loaded.data as { root?: unknown; tools?: unknown };
    if (typeof data?.root !== 'string' || !data.root) throw bad('root 必须是非空字符串，比如 ".."');
    if (!data.tools || typeof data.tools !== 'object' || Array.isArray(data.tools)) throw bad('tools 必须是一个对象');
    for (const [name, policy] of Object.entries(data.tools)) {
        if (!['allow', 'ask', 'deny'].includes(policy)) throw bad(`工具 ${name} 的策略必须是 allow、ask 或 deny`);
    }
    return { root: realOf(path.resolve(path.dirname(PERMISSIONS_FILE), data.root)), tools: data.tools as Record<string, Policy> };
}

/** 从这里起按这份规则执行（文件夹信任答完之后，index.ts 调用一次）。 */
export function usePermissions(next: Rules): void {
    rules = next;
}

export function permissionRoot(): string {
    return rules.root;
}

/**
 * 一个工具的策略：① 任何一条匹配的 deny 都拒绝，不管别的规则怎么写——写下 "run_*": "deny" 的人要的是一个 run_ 开头的
 * 工具都不许，不该被一条更具体的 allow 推翻；② 否则用最具体的那条：工具名 > 长前缀 > 短前缀 > "*"；③ 都不匹配用默认。
 */
export function policyFor(tool: string): Policy {
    const matching = Object.keys(rules.tools).filter((k) => k === tool || (k.endsWith('*') && tool.startsWith(k.slice(0, -1))));
    if (matching.some((k) => rules.tools[k] === 'deny')) return 'deny';
    const rank = (k: string) => (k === tool ? Infinity : k.length);
    const best = matching.sort((a, b) => rank(b) - rank(a))[0];
    return best ? rules.tools[best] : Object.hasOwn(DEFAULTS, tool) ? DEFAULTS[tool] : 'deny';
}

/**
 * 文件工具的路径：相对根目录解析，必须还在根目录里。先按字面查（../、绝对路径），再按真实路径查：根目录里的一个符号链接
 * 可以指向外面，字面上在里面、读写却落在外面。越界就抛错，写入也就不会弹出确认。
 */
export function safePath(input: string): string {
    const target = path.resolve(rules.root, input);
    if (!inside(rules.root, target) || !inside(rules.root, realOf(target))) throw new Error(`路径越界：${input}（根目录是 ${rules.root}）`);
    return target;
}

function inside(root: string, p: string): boolean {
    const rel = path.relative(root, p);
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * 真实路径：顺着符号链接走到底。还不存在的路径（要新建的文件）接在最近一级存在的祖先的真实路径后面；
 * 悬空的符号链接顺着它指向的地方查——写入会落到那里。链接绕成圈时 realpath 报 ELOOP，原样抛出。
 */
function realOf(p: string): string {
    try {
        return fs.realpathSync(p);
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        if (fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink()) return realOf(path.resolve(path.dirname(p), fs.readlinkSync(p)));
        const parent = path.dirname(p);
        return parent === p ? p : path.join(realOf(parent), path.basename(p));
    }
}

/** 当前文件夹的真实路径：同一个文件夹经不同的符号链接进来，也是同一个。 */
export function here(): string {
    return fs.realpathSync('.');
}

/**
 * 权限表里要先信任文件夹才生效的设置，每项一行（列在信任问题里）：根目录在这个文件夹之外；放行了默认并不放行的工具。
 * 克隆来的仓库可以自带这个文件：不问的话，它一句 "run_shell": "allow" 就让模型不经询问以你的身份执行命令。
 */
export function relaxations(r: Rules): string[] {
    const needs: string[] = [];
    if (!inside(here(), r.root)) needs.push(`把根目录设在这个文件夹之外：${visible(r.root)}`);
    const allowed = Object.keys(r.tools).filter((k) => r.tools[k] === 'allow' && DEFAULTS[k] !== 'allow');
    if (allowed.length) needs.push(`不经询问直接执行：${allowed.map(visible).join('、')}`);
    return needs;
}

/** 不信任时实际用的规则：根目录就是这个文件夹，去掉所有 allow（deny、ask 照常）。 */
export function untrusted(r: Rules): Rules {
    return { root: here(), tools: Object.fromEntries(Object.entries(r.tools).filter(([, policy]) => policy !== 'allow')) };
}
