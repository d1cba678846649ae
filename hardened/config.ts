// Day 1：配置。先读工作目录下的 .env，再由真实环境变量覆盖（真实环境优先，空值算未设置）。
import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { CONFIG_CAP, readRegularFile } from './regular-file.ts';

export type Config = { baseUrl: string; apiKey: string; model: string };
export const DEFAULT_BASE_URL = 'https://api.deepseek.com';   // 没写 OPENAI_BASE_URL 时用 DeepSeek

/** 配置，和 .env 里要等信任问题回答的设置（dotEnv：trust.ts 列进问题，settleDotEnv 按回答处理）。 */
export function loadConfig(): { cfg: Config; dotEnv: DotEnv } {
    const file = parseEnv(dotEnvText());   // 没有 .env 也可以：变量可以直接放在环境里
    const vars: string[] = [];
    for (const [name, value] of Object.entries(file)) {
        if (process.env[name] || !exportable(name)) continue;
        process.env[name] = value;
        if (!name.startsWith('GEEKAGENT_')) vars.push(name);
    }
    const env = (name: string, fallback = '') => process.env[name] || file[name] || fallback;
    const { cfg, address } = keyStaysWithAddress({
        baseUrl: env('OPENAI_BASE_URL', DEFAULT_BASE_URL).replace(/\/+$/, ''),
        apiKey: env('OPENAI_API_KEY'),   // 没有也照常启动，命令都能用；要请求模型时才报错（llm.ts）
        model: env('OPENAI_MODEL', 'deepseek-v4-flash'),
    }, file);
    return { cfg, dotEnv: { address, vars } };
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
// Day 8：.env 和 .geekagent/ 一样是文件夹自己的配置，要先信任文件夹（trust.ts 在信任问题里列出 DotEnv 的两样）。
// 别的变量也先放进 process.env（.geekagent/mcp.json 里的 ${…} 要用它们），名字记在 vars 里：不信任这个文件夹时，在启动任何程序
// 之前收回（settleDotEnv），run_shell 的命令和 MCP 服务器就拿不到 NODE_OPTIONS、LD_PRELOAD、PYTHONPATH、GIT_* 这类
// 会让它们执行仓库里代码的变量。.env 写的模型地址（密钥的去处）也记在 address 里等回答（没有就是空的）
export type DotEnv = { readonly address: string; readonly vars: readonly string[] };

function exportable(name: string): boolean {
    return !/^OPENAI_(BASE_URL|API_KEY|MODEL)$/.test(name);
}

/**
 * 密钥发往哪里，文件夹里的 .env 不能替你定。.env 写了 OPENAI_BASE_URL（真实环境里又没有）时，这个地址先不用——否则一个克隆来的仓库
 * 只要放一行 OPENAI_BASE_URL=http://别人的服务器/v1，就能收走你环境里的密钥和每一条消息；密钥和地址写在同一个 .env 里也一样：
 * 模型一次答了 y 的 write 改掉其中的地址，下次启动密钥就发往新的主机。写的就是默认地址时没有差别，不问。
 * Day 8：这个地址作为 address 返回，在文件夹信任问题里问，也算进信任记录的指纹：地址一变就再问；答 y 才改用它（settleDotEnv）。
 */
function keyStaysWithAddress(cfg: Config, file: NodeJS.Dict<string>): { cfg: Config; address: string } {
    const address = (file.OPENAI_BASE_URL ?? '').replace(/\/+$/, '');
    if (!address || address === DEFAULT_BASE_URL || process.env.OPENAI_BASE_URL) return { cfg, address: '' };
    return { cfg: { ...cfg, baseUrl: DEFAULT_BASE_URL }, address };
}

/**
 * Day 8：信任问题答完：信任就改用 .env 的地址（返回新的配置，传进来的那份不改）；不信任就收回 .env 的变量。
 * lines 是要告诉用户的行。不信任时调用方还要告诉 redact.ts 这个 .env 不再是密钥的来源（distrustDotEnv）。
 * 不信任、密钥又和地址写在同一个 .env 里（真实环境里没有密钥）：这把密钥是配那个地址的，不发往默认地址，这次不用。
 */
export function settleDotEnv(cfg: Config, dotEnv: DotEnv, trusted: boolean): { cfg: Config; lines: string[] } {
    const lines: string[] = [];
    const { address, vars } = dotEnv;
    if (address && trusted) {
        cfg = { ...cfg, baseUrl: address };
        lines.push(`模型地址改用 .env 里的 ${shown(address)}：密钥发往 ${keyHost(cfg)}`);
    } else if (address && !process.env.OPENAI_API_KEY && cfg.apiKey) {
        cfg = { ...cfg, apiKey: '' };
        lines.push(`.env 里的模型地址 ${shown(address)} 没有使用（没有信任这个文件夹）：和它写在一起的密钥也不用，这次不向模型发请求`);
    } else if (address) {
        lines.push(`.env 里的模型地址 ${shown(address)} 没有使用（没有信任这个文件夹）：密钥仍发往 ${keyHost(cfg)}`);
    }
    if (!trusted && vars.length) {
        for (const name of vars) delete process.env[name];
        lines.push(`.env 里的 ${vars.map(shown).join('、')} 没有交给 Agent 启动的程序（没有信任这个文件夹）`);
    }
    return { cfg, lines };
}

/** 密钥发往的主机（横幅里显示；write 改 .env 里的地址时，问题里也用它）：按 URL 解析，国际化域名显示成 punycode（看得出 аpple.com 不是 apple.com）。 */
export function keyHost(cfg: Pick<Config, 'baseUrl'>): string {
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

// Day 8：启动时的真实环境：这个模块载入时、loadConfig 把 .env 的变量放进 process.env 之前的样子。信任问题只把这里的密钥
// 当作「你的」（redact.ts 的 nameOwnSecrets）：问题问的正是这个文件夹的 .env，它写的值不能算
export const realEnv: Readonly<NodeJS.Dict<string>> = { ...process.env };
