// Day 8：文件夹信任。克隆来的仓库可以自带 .geekagent/ 配置，把根目录设到文件夹之外、放行 run_shell，
// 之后的阶段还能让它一启动就运行 MCP 服务器。这样的设置第一次出现时先问一次；回答按文件夹的真实路径
// 记在用户主目录里。记下的是这些设置的指纹：它们一变（多了一台服务器、换了命令），就再问一次。
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { redact } from './redact.js';
import { loadJson, writeJsonAtomic } from './storage.js';

export const TRUST_FILE = path.join(os.homedir(), '.geekagent', 'trusted-folders.json');

interface TrustRecord {
    trusted: boolean;
    fingerprint: string;    // 问的时候列出的那些设置的 sha256
}

/** 当前文件夹的真实路径：同一个文件夹经不同的符号链接进来，也只问一次。 */
export function currentFolder(): string {
    return fs.realpathSync(process.cwd());
}

/**
 * 信任问题里显示来自配置的字符串：普通的词原样显示；带空格、引号或控制字符的显示成 JSON 字符串，
 * 控制字符成了 \u001b 这样的可见转义，配置里藏的终端控制序列改不了问题的样子。
 */
export function quote(text: string): string {
    if (/^[\p{L}\p{N}_@%+=:,./~*-]+$/u.test(text)) return text;
    return JSON.stringify(text).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * needs：项目配置里要信任才生效的设置，每项一行（为空就没什么可问的，直接算信任）。
 * 记录里有这个文件夹、指纹也相同时不再问，直接用上次的回答。记录文件坏了：原样保留、不覆盖，
 * 当作没有记录——照样问，但这次的回答记不住（warn 说明原因）。
 */
export async function trustFolder(
    needs: string[],
    confirm: (question: string) => Promise<boolean>,
    warn: (line: string) => void,
): Promise<boolean> {
    if (needs.length === 0) return true;
    const folder = currentFolder();
    const fingerprint = createHash('sha256').update(needs.join('\n')).digest('hex');
    const loaded = loadJson(TRUST_FILE);
    let records: Record<string, unknown> | null = {};
    if (loaded.state === 'error') records = null;
    if (loaded.state === 'ok') records = isPlainObject(loaded.data) ? loaded.data : null;
    const known = records?.[folder];
    if (isRecord(known) && known.fingerprint === fingerprint) return known.trusted;
    if (!records) warn(`信任记录 ${TRUST_FILE} 已损坏，原样保留；这次的回答不会被记住`);

    // 最后一行是问题本身：全屏界面把它放在 [y/N] 那一行
    const question = [
        '这个文件夹自己的配置（.geekagent/）要：',
        ...needs.map((line) => `  - ${line}`),
        '这些设置以你的用户权限生效：只信任你自己写的或检查过的配置。',
        `信任文件夹 ${quote(folder)} 吗？`,
    ].join('\n');
    // 脱敏：展开后的命令行、环境变量里可能有密钥
    const trusted = await confirm(redact(question));
    if (records) {
        try {
            writeJsonAtomic(TRUST_FILE, { ...records, [folder]: { trusted, fingerprint } satisfies TrustRecord });
        } catch (e) {
            warn(`记不住这次的回答：${(e as Error).message}`);
        }
    }
    return trusted;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRecord(value: unknown): value is TrustRecord {
    return isPlainObject(value) && typeof value.trusted === 'boolean' && typeof value.fingerprint === 'string';
}
