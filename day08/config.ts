// Day 1：配置。先读工作目录下的 .env，再由真实环境变量覆盖（真实环境优先，空值算未设置）。
import fs from 'node:fs';
import { parseEnv } from 'node:util';

export interface Config {
    baseUrl: string;
    apiKey: string;
    model: string;
}

function loadDotEnv(): void {
    if (!fs.existsSync('.env')) return;   // 没有 .env 也可以：变量可以直接放在环境里
    for (const [name, value] of Object.entries(parseEnv(fs.readFileSync('.env', 'utf8')))) {
        if (!process.env[name]) process.env[name] = value;
    }
}

export function loadConfig(): Config {
    loadDotEnv();
    const env = (name: string, fallback: string) => process.env[name] || fallback;
    const apiKey = env('OPENAI_API_KEY', '');
    if (!apiKey) {
        console.error('缺少 OPENAI_API_KEY：请把 .env.example 复制为 .env 并填写 OPENAI_API_KEY');
        process.exit(1);
    }
    return {
        baseUrl: env('OPENAI_BASE_URL', 'https://api.deepseek.com').replace(/\/+$/, ''),
        apiKey,
        model: env('OPENAI_MODEL', 'deepseek-v4-flash'),
    };
}
