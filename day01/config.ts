// Day 1：配置。先读工作目录下的 .env，再由真实环境变量覆盖（真实环境优先，空值算未设置）。
import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

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
// 放进去的只有 Agent 自己的设置（GEEKAGENT_*，读它们的代码在别的文件里），别的变量只留在 file 里：Agent 启动的程序
// （之后阶段的命令）不该从仓库的 .env 拿到 NODE_OPTIONS、LD_PRELOAD、PYTHONPATH、GIT_* 这类会让它们执行仓库里代码的变量。
// 要交给命令的变量，请设为真实的环境变量
function exportable(name: string): boolean {
    return name.startsWith('GEEKAGENT_');
}

/**
 * 密钥和它发往的地址来自同一处：都来自真实环境，或者都来自同一个 .env。.env 写了 OPENAI_BASE_URL、密钥却来自环境变量时，
 * 这个地址不用——否则一个克隆来的仓库只要放一行 OPENAI_BASE_URL=http://别人的服务器/v1，就能收走你的密钥和每一条消息。
 * 写的就是默认地址时没有差别，不提示。限制：密钥和地址都写在同一个 .env 里时照用（那是这个 .env 自己的密钥），
 * 有人改了其中的地址，下次启动横幅里「密钥发往」会显示新的主机。
 */
function keyStaysWithAddress(cfg: Config, file: NodeJS.Dict<string>): Config {
    const address = (file.OPENAI_BASE_URL ?? '').replace(/\/+$/, '');
    if (!address || address === DEFAULT_BASE_URL || process.env.OPENAI_BASE_URL || !process.env.OPENAI_API_KEY) return cfg;
    const safe = { ...cfg, baseUrl: DEFAULT_BASE_URL };
    console.error(`.env 里的模型地址 ${shown(address)} 没有使用：密钥来自环境变量，不发往文件夹里 .env 写的地址，仍发往 ${keyHost(safe)}。\n` +
        '要用这个地址：把 OPENAI_API_KEY 也写进这个 .env（不设为环境变量），或者把 OPENAI_BASE_URL 设为环境变量');
    return safe;
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

// .env、之后的状态文件和 mcp.json 都经这一处读：只读普通文件，有大小上限。克隆来的文件夹可以把 .env 换成命名管道，
// 或指向 /dev/stdin、/dev/zero 的符号链接：直接 readFileSync 会一直等下去，或者一直读（几 GB 内存），Agent 启动时悄悄卡住。
// 所以先非阻塞地打开（打开命名管道不等写的一方），用 fstat 看打开的到底是什么（指向普通文件的链接照读），
// 再最多读上限多一个字节。上限：.env、mcp.json 这类手写的配置 1 MiB；状态文件的上限见 storage.ts
export const CONFIG_CAP = 1024 * 1024;

export function readRegularFile(file: string, cap: number): string {
    const fd = openRegularFile(file);
    try {
        const st = fs.fstatSync(fd);
        const buf = Buffer.alloc(Math.min(st.size, cap) + 1);
        let n = 0;
        let got = -1;
        while (got !== 0 && n < buf.length) {
            got = fs.readSync(fd, buf, n, buf.length - n, null);
            n += got;
        }
        if (n > cap) throw new Error(`拒绝读取 ${file}：超过 ${cap / 1024 / 1024} MiB 的上限，不像是手写或 Agent 写的文件。提示：看看它是什么，移走或删掉它`);
        return buf.toString('utf8', 0, n);
    } finally {
        fs.closeSync(fd);
    }
}

/** 打开一个普通文件来读；不是普通文件就关上、抛出。 */
export function openRegularFile(file: string): number {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    if (fs.fstatSync(fd).isFile()) return fd;
    fs.closeSync(fd);
    throw new Error(`拒绝读取 ${file}：不是普通文件（是命名管道、设备或套接字，或指向它们的链接），读它会卡住。提示：换成普通文件，或者把它移走`);
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
