// Day 1：配置。先读工作目录下的 .env，再由真实环境变量覆盖（真实环境优先，空值算未设置）。
import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { CONFIG_CAP, readRegularFile } from './regular-file.ts';

export type Config = { baseUrl: string; apiKey: string; model: string };
const DEFAULT_BASE_URL = 'https://api.deepseek.com';   // 没写 OPENAI_BASE_URL 时用 DeepSeek

export function loadConfig(): Config {
    const file = parseEnv(dotEnvText());   // 没有 .env 也可以：变量可以直接放在环境里
    for (const [name, value] of Object.entries(file)) if (!process.env[name] && exportable(name)) process.env[name] = value;
    const env = (name: string, fallback = '') => process.env[name] || file[name] || fallback;
    return keyStaysWithAddress({
        baseUrl: env('OPENAI_BASE_URL', DEFAULT_BASE_URL).replace(/\/+$/, ''),
        apiKey: env('OPENAI_API_KEY'),   // 没有也照常启动，命令都能用；要请求模型时才报错（llm.ts）
        model: env('OPENAI_MODEL', 'deepseek-v4-flash'),
    }, file);
}

// —— 加固：缺少密钥时说清怎么补；文件夹里的 .env 不能替你选密钥发往哪里 ——

/** 缺少密钥时怎么办：启动横幅里说一次，每次要请求模型时再说（那一轮撤销，什么也不发）。 */
export function missingKey(): string {
    const where = fs.existsSync('.env') ? '在 .env 里填上' : '把 .env.example 复制为 .env 并填上';   // 已有 .env 的人不必再复制一遍
    return `缺少 OPENAI_API_KEY：请${where} OPENAI_API_KEY=你的密钥（或设为环境变量）再启动。命令照常可用，只是不能和模型对话\n` +
        `没有密钥也能先看演示：npm run demo -- ${path.basename(import.meta.dirname)}；或者自己当模型：npm run model（照它打印的命令启动 Agent）`;
}

// .env 是当前文件夹的：克隆来的仓库可以自带一个。OPENAI_* 由 loadConfig 直接从 file 读、不放进 process.env：
// 否则 Agent 启动的程序里用 OpenAI SDK 的那些，会把环境里你的密钥发往 .env 写的地址。
// Day 8：.env 和 .geekagent/ 一样是文件夹自己的配置，要先信任文件夹（trust.ts 在信任问题里列出这里记下的两样）。
// 别的变量也先放进 process.env（.geekagent/mcp.json 里的 ${…} 要用它们），记下名字：不信任这个文件夹时，在启动任何程序
// 之前收回（settleDotEnv），run_shell 的命令和 MCP 服务器就拿不到 NODE_OPTIONS、LD_PRELOAD、PYTHONPATH、GIT_* 这类
// 会让它们执行仓库里代码的变量。密钥来自环境变量时 .env 写的模型地址，也记下来等回答
const untrusted = { address: '', vars: [] as string[] };

function exportable(name: string): boolean {
    if (/^OPENAI_(BASE_URL|API_KEY|MODEL)$/.test(name)) return false;
    if (!name.startsWith('GEEKAGENT_')) untrusted.vars.push(name);
    return true;
}

/**
 * 密钥和它发往的地址来自同一处：都来自真实环境，或者都来自同一个 .env。.env 写了 OPENAI_BASE_URL、密钥却来自环境变量时，
 * 这个地址不用——否则一个克隆来的仓库只要放一行 OPENAI_BASE_URL=http://别人的服务器/v1，就能收走你的密钥和每一条消息。
 * 写的就是默认地址时没有差别，不提示。限制：密钥和地址都写在同一个 .env 里时照用（那是这个 .env 自己的密钥），
 * 有人改了其中的地址，下次启动横幅里「密钥发往」会显示新的主机。
 * Day 8：这个地址先不用，记下来在文件夹信任问题里问；答 y 才改用它（settleDotEnv）。
 */
function keyStaysWithAddress(cfg: Config, file: NodeJS.Dict<string>): Config {
    const address = (file.OPENAI_BASE_URL ?? '').replace(/\/+$/, '');
    if (!address || address === DEFAULT_BASE_URL || process.env.OPENAI_BASE_URL || !process.env.OPENAI_API_KEY) return cfg;
    const safe = { ...cfg, baseUrl: DEFAULT_BASE_URL };
    untrusted.address = address;
    return safe;
}

/** Day 8：信任问题里要列出的 .env 设置：模型地址（没有就是空的），和要交给 Agent 启动的程序的变量（名字和值）。 */
export function dotEnvNeeds(): { address: string; vars: [string, string][] } {
    return { address: untrusted.address, vars: untrusted.vars.map((name) => [name, process.env[name] ?? '']) };
}

/** Day 8：信任问题答完：信任就改用 .env 的地址；不信任就收回 .env 的变量。返回要告诉用户的行。 */
export function settleDotEnv(cfg: Config, trusted: boolean): string[] {
    const lines: string[] = [];
    const { address, vars } = untrusted;
    if (address && trusted) {
        cfg.baseUrl = address;
        lines.push(`模型地址改用 .env 里的 ${shown(address)}：密钥发往 ${keyHost(cfg)}`);
    } else if (address) {
        lines.push(`.env 里的模型地址 ${shown(address)} 没有使用（没有信任这个文件夹）：密钥仍发往 ${keyHost(cfg)}`);
    }
    if (!trusted) distrustedKey = cfg.apiKey;   // 它的 .env 也不再是密钥的来源（dotEnvSecrets）
    if (!trusted && vars.length) {
        for (const name of vars) delete process.env[name];
        lines.push(`.env 里的 ${vars.map(shown).join('、')} 没有交给 Agent 启动的程序（没有信任这个文件夹）`);
    }
    return lines;
}

/** 密钥发往的主机（横幅里显示）：按 URL 解析，国际化域名显示成 punycode（看得出 аpple.com 不是 apple.com）。 */
export function keyHost(cfg: Config): string {
    try {
        return new URL(cfg.baseUrl).host || shown(cfg.baseUrl);
    } catch {
        return shown(cfg.baseUrl);   // 写错的地址原样显示，请求时再报错
    }
}

// 来自 .env 的文字只显示可见的 ASCII：双向控制符、零宽字符、形近的外文字母都成了 \uXXXX
function shown(text: string): string {
    return text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// .env 读不了（不是普通文件、太大、没有权限）：说一行，这次当作没有 .env，文件本身不动
function dotEnvText(): string {
    try {
        return readRegularFile('.env', CONFIG_CAP);
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') console.error(`${(e as Error).message}（这次不用 .env）`);
        return '';
    }
}

// Day 8：没有信任的文件夹，它的 .env 不是密钥的来源：克隆来的 .env 写上 NPM_TOKEN="x; touch X"，含这段文字的命令、输出
// 就会被当成「你的密钥」换掉。信任问题答完之前照旧算（交给模型的文字多换掉几处不要紧；信任问题本身不用它，见 realEnv）。
// 不信任时只留下 Agent 自己在用的模型密钥（它可能正来自这个 .env）：它每次都发往模型服务，在哪里出现都是密钥
let distrustedKey: string | null = null;

/** redact.ts 收集密钥时用的 .env 变量；没有 .env、读不了（命名管道、设备、太大，启动时已经说过）时是空的。 */
export function dotEnvSecrets(): NodeJS.Dict<string> {
    if (distrustedKey !== null) return { OPENAI_API_KEY: distrustedKey };
    try {
        return parseEnv(readRegularFile('.env', CONFIG_CAP));
    } catch {
        return {};
    }
}

// Day 8：启动时的真实环境：这个模块载入时、loadConfig 把 .env 的变量放进 process.env 之前的样子。信任问题只把这里的密钥
// 当作「你的」（redact.ts 的 nameOwnSecrets）：问题问的正是这个文件夹的 .env，它写的值不能算
export const realEnv: Readonly<NodeJS.Dict<string>> = { ...process.env };

/** 信任问题的回答也算 .env 的「状态」：答了不信任之后，redact.ts 下一次脱敏就重新收集。 */
export function dotEnvDistrusted(): boolean {
    return distrustedKey !== null;
}
