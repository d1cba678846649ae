// Day 8：权限边界。.geekagent/GeekAgent.json 规定根目录和每个工具的策略（allow / ask / deny），
// 文件工具的路径必须落在根目录之内。
import fs from 'node:fs';
import path from 'node:path';
import { withSecretNote } from './redact.ts';
import { loadJson, writeJsonAtomic, type Present } from './storage.ts';
import { currentFolder, quote } from './trust.ts';

export type Policy = 'allow' | 'ask' | 'deny';

export const PERMISSIONS_FILE = '.geekagent/GeekAgent.json';

// 内置工具的默认策略，之后每个阶段新增的工具各加一行：用户文件里没有匹配的规则时才用，所以新工具即使用旧文件也有默认值
export const DEFAULT_POLICIES: Record<string, Policy> = {
    get_current_time: 'allow', run_shell: 'ask', ls: 'allow', read: 'allow', glob: 'allow', write: 'ask', patch: 'ask',
    todo_write: 'allow', delegate_task: 'allow',     // Day 9：规划、子 Agent
    memory_write: 'allow', memory_search: 'allow',   // Day 10：长期记忆
    search: 'allow', fetch: 'ask',                   // Day 12：代码搜索、抓网页
    rag_add: 'ask', rag_search: 'allow',             // Day 14：知识库
};

export interface PermissionConfig {
    root: string;                       // 绝对路径
    tools: Record<string, Policy>;      // 用户文件里的规则：键是工具名、"前缀*" 或 "*"
}

let config: PermissionConfig = { root: process.cwd(), tools: {} };
// Day 11：内置默认，加上运行时注册的工具各自的默认（ensureToolPolicy）
const defaults: Record<string, Policy> = { ...DEFAULT_POLICIES };
let confirmFn: (prompt: string) => Promise<boolean> = async () => false;

/** 读取权限文件；不存在就写入默认值。 */
export function loadPermissions(): PermissionConfig {
    const loaded = loadJson(PERMISSIONS_FILE);
    if (loaded.state === 'missing') writeJsonAtomic(PERMISSIONS_FILE, { root: '..', tools: DEFAULT_POLICIES });
    const data = loaded.state === 'missing' ? { root: '..', tools: {} } : checkedFile(loaded);
    // root 相对于配置文件所在目录解析：默认的 ".." 就是启动时的工作目录
    return { root: path.resolve(path.dirname(path.resolve(PERMISSIONS_FILE)), data.root), tools: { ...data.tools } };
}

/** 前端把自己的确认函数交进来：行模式读下一行，全屏界面在输入行里问 [y/N]。 */
export function setupPermissions(next: PermissionConfig, confirm: (prompt: string) => Promise<boolean>): void {
    config = next;
    confirmFn = confirm;
}

export function permissionRoot(): string {
    return config.root;
}

/** 一条规则管不管这个工具：键就是工具名，或者是 "前缀*"（"*" 管所有工具）。 */
function ruleMatches(key: string, tool: string): boolean {
    return key === tool || (key.endsWith('*') && tool.startsWith(key.slice(0, -1)));
}

/**
 * 决定顺序：① 任何一条匹配的 deny 规则都直接拒绝，不管别的规则怎么写；
 * ② 否则用最具体的那条用户规则：工具名 > 长前缀 > 短前缀 > "*"；③ 没有用户规则就用内置默认；
 * ④ 连默认都没有的工具一律拒绝：新工具必须显式放行。
 */
export function policyFor(tool: string): Policy {
    const matching = Object.keys(config.tools).filter((k) => ruleMatches(k, tool));
    if (matching.some((k) => config.tools[k] === 'deny') || readDenied(tool)) return 'deny';
    const specificity = (k: string) => (k === tool ? Infinity : k.length);
    const best = matching.sort((a, b) => specificity(b) - specificity(a))[0];
    if (best) return config.tools[best];
    return Object.hasOwn(defaults, tool) ? defaults[tool] : 'deny';
}

/** 要询问时，确认提示显示原文、不脱敏（只给终端前的用户看）；原文里有密钥时，在这里补一行说出有几处、是哪些。 */
export async function authorize(tool: string, prompt = `工具 ${tool} 请求执行`): Promise<boolean> {
    const policy = policyFor(tool);
    if (policy === 'allow') return true;
    if (policy === 'deny') return false;
    return confirmFn(withSecretNote(prompt));
}

/** 把路径限制在根目录内：先按字面检查，再按真实路径检查（realInside），挡住指向外面的符号链接。 */
export function safePath(input: string): string {
    const target = path.resolve(config.root, input);
    if (!inside(config.root, target) || !realInside(target)) throw new Error(`路径越界：${input}`);
    return target;
}

function inside(base: string, p: string): boolean {
    const rel = path.relative(base, p);
    return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}

// —— 加固：权限文件的格式检查、符号链接、glob 模式、文件夹信任 ——

/** 读不出来或格式不对时抛出，由入口打印并退出：写错的权限文件不能悄悄变成「全部默认」。 */
function checkedFile(loaded: Present): { root: string; tools: Record<string, Policy> } {
    const bad = (why: string) => new Error(`读取 ${PERMISSIONS_FILE} 失败：${why}`);
    if (loaded.state === 'error') throw bad(loaded.message);
    const data = loaded.data as { root?: unknown; tools?: unknown } | null;
    if (!data || typeof data !== 'object') throw bad('内容必须是一个对象');
    if (typeof data.root !== 'string' || !data.root) throw bad('root 必须是非空字符串');
    if (!data.tools || typeof data.tools !== 'object' || Array.isArray(data.tools)) throw bad('tools 必须是一个对象');
    for (const [name, policy] of Object.entries(data.tools)) {
        if (!['allow', 'ask', 'deny'].includes(policy as string)) throw bad(`工具 ${name} 的策略必须是 allow、ask 或 deny`);
    }
    return { root: data.root, tools: data.tools as Record<string, Policy> };
}

/** 真实路径也在根目录内：顺着符号链接（包括悬空的）找到写入真正会落到的地方。 */
function realInside(target: string): boolean {
    let existing = target;
    for (;;) {
        try {
            existing = fs.realpathSync(existing);
            break;
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
            // 悬空的符号链接：它指向的地方才是写入会落到的位置，顺着它继续检查
            const link = readLink(existing);
            if (link !== null) {
                existing = path.resolve(path.dirname(existing), link);
                continue;
            }
            const parent = path.dirname(existing);
            if (parent === existing) break;
            existing = parent;   // 目标还不存在：检查离它最近的已存在的祖先
        }
    }
    return inside(fs.realpathSync(config.root), existing);
}

function readLink(p: string): string | null {
    try {
        return fs.readlinkSync(p);
    } catch {
        return null;   // 不存在，或者不是符号链接
    }
}

/** glob 只能从根目录往下找：拒绝绝对路径模式和 .. 段。 */
export function safeGlob(pattern: string): void {
    const p = pattern.replace(/\\/g, '/');
    if (path.isAbsolute(p) || p.split('/').includes('..')) throw new Error(`模式不能是绝对路径或包含 ..：${pattern}`);
}

/**
 * 权限文件是项目自带的：其中要先信任文件夹（trust.ts）才生效的设置，每项一行（原样列在信任问题里）——
 * 根目录在文件夹之外、放行内置默认并不放行的工具。首次启动写入的默认文件只放行默认就放行的工具，所以不会引出这个问题。
 */
export function trustNeeds(p: PermissionConfig): string[] {
    const needs: string[] = [];
    if (!inside(currentFolder(), realOrSelf(p.root))) needs.push(`把根目录设在文件夹之外：${quote(p.root)}`);
    const allowed = Object.keys(p.tools).filter((k) => p.tools[k] === 'allow' && DEFAULT_POLICIES[k] !== 'allow');
    if (allowed.length) needs.push(`不经询问直接执行：${allowed.map(quote).join('、')}`);
    return needs;
}

/** 不信任时实际用的配置：根目录就是本文件夹，去掉所有 allow 规则；deny、ask 照常。 */
export function untrusted(p: PermissionConfig): PermissionConfig {
    return { root: currentFolder(), tools: Object.fromEntries(Object.entries(p.tools).filter(([, policy]) => policy !== 'allow')) };
}

function realOrSelf(p: string): string {
    try {
        return fs.realpathSync(p);
    } catch {
        return p;   // 还不存在的路径按字面比较
    }
}

/** Day 11：运行时注册的工具（如技能自带的工具）用它设默认策略；用户规则照样优先。 */
export function ensureToolPolicy(tool: string, policy: Policy): void {
    if (!Object.hasOwn(defaults, tool)) defaults[tool] = policy;
}

/** Day 15：新发现的 MCP 工具以 ask 写进权限文件，读者照章节把某一个改成 allow 就行；已有规则（工具名、前缀）管着的工具不动。 */
export function recordToolPolicies(tools: string[]): void {
    const loaded = loadJson<{ tools?: Record<string, Policy> }>(PERMISSIONS_FILE);
    if (loaded.state !== 'ok' || !loaded.data.tools) return;
    const listed = loaded.data.tools;
    const missing = tools.filter((tool) => !Object.keys(listed).some((k) => ruleMatches(k, tool)));
    if (missing.length === 0) return;
    for (const tool of missing) listed[tool] = 'ask';
    writeJsonAtomic(PERMISSIONS_FILE, loaded.data);
}

// Day 11：把文件内容交给模型的不只 read：git_diff 返回改动的行；Day 12 起 search 返回文件里的行，rag_add 收录本地文件
// （网址也一起拒绝：一个工具一条策略）。用户把 read 设成 deny，就是不让模型看文件内容，这些工具也一起拒绝，不必一个个再写。
// rag_search 只查已经收录的知识库，不在内
const READS_FILES = ['git_diff', 'search', 'rag_add'];

function readDenied(tool: string): boolean {
    return READS_FILES.includes(tool) && policyFor('read') === 'deny';
}
