// Day 1：配置。OPENAI_BASE_URL、OPENAI_API_KEY、OPENAI_MODEL：真实的环境变量优先，其次是当前目录的 .env。
import fs from 'node:fs';
import { parseEnv } from 'node:util';
import { err } from './color.ts';

export interface Config {
    baseUrl: string;
    apiKey: string;
    model: string;
}

export const DEFAULT_BASE_URL = 'https://api.deepseek.com';

export const MISSING_KEY = '缺少 OPENAI_API_KEY：把 .env.example 复制为 .env 并填上密钥（或设为环境变量）；'
    + '没有密钥可以先 npm run model 自己当模型';

export function loadConfig(): Config {
    const file = readDotEnv();
    // .env 跟着文件夹走，克隆来的仓库可以自带一个。放进环境变量的只有 Agent 自己的设置 GEEKAGENT_*：之后 Agent 启动的
    // 程序不该从别人的 .env 拿到 NODE_OPTIONS、LD_PRELOAD 这类会让它们执行仓库里代码的变量，也拿不到 OPENAI_*
    for (const [name, value] of Object.entries(file)) {
        if (name.startsWith('GEEKAGENT_') && !process.env[name]) process.env[name] = value;
    }
    const setting = (name: string) => process.env[name] || file[name] || '';
    const cfg: Config = {
        baseUrl: (setting('OPENAI_BASE_URL') || DEFAULT_BASE_URL).replace(/\/+$/, ''),
        apiKey: setting('OPENAI_API_KEY'),   // 没有也照常启动：/help、/reset 都能用，要问模型时才报错
        model: setting('OPENAI_MODEL') || 'deepseek-v4-flash',
    };
    // 密钥和它发往的地址要来自同一处。密钥来自你的环境变量、地址却来自文件夹里的 .env 时，不用这个地址：否则一个克隆来的
    // 仓库只要写一行 OPENAI_BASE_URL=http://别人的服务器/v1，就能收走你的密钥和每一条消息。两者写在同一个 .env 里时照用
    const fromFile = (file.OPENAI_BASE_URL ?? '').replace(/\/+$/, '');
    if (fromFile && fromFile !== DEFAULT_BASE_URL && !process.env.OPENAI_BASE_URL && process.env.OPENAI_API_KEY) {
        cfg.baseUrl = DEFAULT_BASE_URL;
        err('error', `没有用 .env 里的 OPENAI_BASE_URL=${fromFile}：密钥来自环境变量，不发往文件夹里 .env 写的地址。`
            + '要用这个地址，把密钥也写进这个 .env，或者把 OPENAI_BASE_URL 设为环境变量');
    }
    return cfg;
}

function readDotEnv(): NodeJS.Dict<string> {
    try {
        return parseEnv(fs.readFileSync('.env', 'utf8'));
    } catch (e) {
        // 没有 .env 也可以：变量可以直接放在环境里
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') err('error', `读不了 .env：${(e as Error).message}（这次不用它）`);
        return {};
    }
}

/**
 * 密钥发往的主机，横幅里显示：每次启动都看得见密钥去哪（write 要改 .env 里的地址时，问题里也用它）。
 * 按 URL 解析，国际化域名显示成 punycode，看得出 аpple.com 不是 apple.com。
 */
export function keyHost(cfg: Pick<Config, 'baseUrl'>): string {
    try {
        return new URL(cfg.baseUrl).host;
    } catch {
        return cfg.baseUrl;   // 写错的地址原样显示，请求时再报错
    }
}
