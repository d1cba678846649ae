// Day 1：配置。先读工作目录下的 .env，再由真实环境变量覆盖（真实环境优先，空值算未设置）。
import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

export type Config = { baseUrl: string; apiKey: string; model: string };

function loadDotEnv(): void {
    if (!fs.existsSync('.env')) return;   // 没有 .env 也可以：变量可以直接放在环境里
    for (const [name, value] of Object.entries(parseEnv(fs.readFileSync('.env', 'utf8')))) if (!process.env[name]) process.env[name] = value;
}

export function loadConfig(): Config {
    loadDotEnv();
    const env = (name: string, fallback: string) => process.env[name] || fallback;
    const apiKey = env('OPENAI_API_KEY', '');
    if (!apiKey) {
        const where = fs.existsSync('.env') ? '在 .env 里填上' : '把 .env.example 复制为 .env 并填上';   // 已有 .env 的人不必再复制一遍
        console.error(`缺少 OPENAI_API_KEY：请${where} OPENAI_API_KEY=你的密钥（或设为环境变量）\n没有密钥也能先看演示：npm run demo -- ${path.basename(import.meta.dirname)}`);
        process.exit(1);
    }
    return {
        baseUrl: env('OPENAI_BASE_URL', 'https://api.deepseek.com').replace(/\/+$/, ''),
        apiKey,
        model: env('OPENAI_MODEL', 'deepseek-v4-flash'),
    };
}
