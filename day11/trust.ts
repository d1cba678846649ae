// Day 8：文件夹信任。克隆来的仓库可以自带 .geekagent/GeekAgent.json（放行 run_shell、把根目录设到外面）和 .env
// （NODE_OPTIONS=--require ./.hooks/h.cjs：之后你答 y 的每个 node 命令都先执行它）。这样的设置出现时，启动先问一次，
// 逐条列出它们的原值；答 y 之前一样都不生效。回答按文件夹的真实路径记在 ~/.geekagent/trusted-folders.json 里，
// 记的是这些设置的 HMAC：设置一变（一个值改了一个字），记录对不上，就再问一次。密钥发往的地址由 .env 定时，它也是这样一项设置。
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { visible } from './color.ts';
import { DEFAULT_BASE_URL, type Config } from './config.ts';
import { here } from './permissions.ts';
import { nameOwnSecrets } from './redact.ts';
import { loadJson, writeJsonAtomic } from './storage.ts';

const HOME = path.join(os.homedir(), '.geekagent');
const RECORD_FILE = path.join(HOME, 'trusted-folders.json');
const KEY_FILE = path.join(HOME, 'trust-key');

/**
 * needs：权限表里要信任才生效的设置（permissions.ts 的 relaxations）。.env 替密钥选的地址、要交给程序的变量在这里补上。
 * 都没有就不问。记录里这个文件夹的 HMAC 和这次的设置对得上，也不问。答 y：记下，把 .env 的变量交给之后启动的程序。
 */
export async function trustFolder(
    needs: string[],
    cfg: Config,
    confirm: (question: string) => Promise<boolean>,
    warn: (text: string) => void,
): Promise<boolean> {
    const vars = dotEnvVars();
    const address = dotEnvAddress(cfg);
    // 原值：HMAC 算的是它们。地址也在里面：模型的一次 write 改了 .env 里的 OPENAI_BASE_URL，下次启动记录对不上，就再问
    const settings = [...needs, ...(address ? [`OPENAI_BASE_URL=${address}`] : []), ...vars.map(([name, value]) => `${name}=${value}`)];
    if (settings.length === 0) return true;
    const folder = here();
    let records: Record<string, string> | null = null;
    let mark = '';
    try {
        records = readRecords();
        mark = createHmac('sha256', trustKey()).update(settings.join('\n')).digest('hex');
    } catch (e) {
        warn(`${(e as Error).message}\n（照样问你，只是这次的回答记不住）`);
    }
    const known = records !== null && mark !== '' && records[folder] === mark;
    if (!known && !(await confirm(question(folder, needs, address, vars)))) {
        if (!address) return false;
        cfg.apiKey = '';   // 这个 .env 的密钥是配它写的地址的：地址不用，密钥也哪里都不发
        warn(`没有信任：.env 里的密钥不发往它写的地址 ${address}，这次不用它`);
        return false;
    }
    try {
        if (!known && records && mark) writeJsonAtomic(RECORD_FILE, { ...records, [folder]: mark });
    } catch (e) {
        warn(`记不住这次的回答（下次启动还会问）：${(e as Error).message}`);
    }
    for (const [name, value] of vars) process.env[name] = value;   // 答了 y（或者以前答过）：交给 Agent 启动的程序
    return true;
}

/**
 * 信任问题。值原样显示：控制字符转义（藏着的 \r、颜色序列改不了问题的样子），‹ › 也转义（问题里的 ‹名字› 只能是换掉的
 * 你自己的密钥，文件里写一个冒充不了），只有等于你自己的密钥的那一段换成 ‹名字›。会让程序运行别的代码的变量，下面多一行。
 */
function question(folder: string, needs: string[], address: string, vars: [string, string][]): string {
    const shown = (text: string) => nameOwnSecrets(visible(text).replace(/[‹›]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`));
    const lines = ['这个文件夹自己的配置要（答 y 之前一样都不生效）：', ...needs.map((need) => `  - ${shown(need)}`)];
    if (address) lines.push(`  - 把密钥和每条消息发往 .env 里写的 ${shown(address)}`);
    for (const [name, value] of vars) {
        lines.push(`  - 把 .env 里的 ${shown(`${name}=${value}`)} 交给 Agent 启动的每个程序（命令……）`);
        const what = RUNS.find(([pattern]) => pattern.test(name))?.[1];
        if (what) lines.push(`    ${name} 会让程序运行别的代码：${what}`);
    }
    return [...lines, '这些设置以你的用户权限生效：只信任你自己写的或检查过的配置。', `信任文件夹 ${visible(folder)} 吗？`].join('\n');
}

// 会让程序运行别的代码的变量：按名字认。列的是常见的几类，认不全；不在表里的变量照样列在问题里，只是没有这一行说明
const RUNS: [RegExp, string][] = [
    [/^NODE_OPTIONS$/, 'node 每次启动都带上这些选项，--require、--import 会先执行指定的文件'],
    [/^(BASH_ENV|ENV)$/, 'bash / sh 运行脚本之前先执行它指向的文件'],
    [/^(LD|DYLD)_/, '程序启动时先加载它指定的库'],
    [/^GIT_/, 'git 按它读配置、运行命令（GIT_CONFIG_KEY_0 设成 core.fsmonitor，每个 git status 都运行 GIT_CONFIG_VALUE_0 写的命令）'],
    [/^(PYTHON|PERL5|RUBY)/, 'python / perl / ruby 启动时按它加载代码'],
    [/^(EDITOR|VISUAL|PAGER|SHELL|PATH)$|_COMMAND$/, '程序要打开编辑器、分页器、shell 或找命令时运行它指向的程序'],
];

/**
 * 密钥发往的地址是不是这个 .env 定的：真实环境里没有 OPENAI_BASE_URL、用的又不是默认地址，它就只能来自 .env（密钥来自环境变量时，
 * config.ts 已经换回了默认地址，所以这时密钥也来自这个 .env）。是就返回这个地址，不是返回 ''。
 */
function dotEnvAddress(cfg: Config): string {
    return !process.env.OPENAI_BASE_URL && cfg.baseUrl !== DEFAULT_BASE_URL ? cfg.baseUrl : '';
}

/** .env 里要交给程序的变量：GEEKAGENT_* 不用问（第 1 天起就交给程序），OPENAI_* 从不交给程序，真实环境里已经有的用真实的。 */
function dotEnvVars(): [string, string][] {
    let file: NodeJS.Dict<string> = {};
    try {
        file = parseEnv(fs.readFileSync('.env', 'utf8'));
    } catch { /* 没有 .env，或者读不了（config.ts 已经说过） */ }
    return Object.entries(file).filter((entry): entry is [string, string] => {
        const [name, value] = entry;
        return value !== undefined && !/^(GEEKAGENT|OPENAI)_/.test(name) && process.env[name] === undefined;
    });
}

// 记录文件：文件夹的真实路径 → HMAC。读不出来时不当成空的（那样一保存就覆盖了），抛出，说清坏在哪
function readRecords(): Record<string, string> {
    const loaded = loadJson(RECORD_FILE);
    if (loaded.state === 'missing') return {};
    if (loaded.state === 'ok' && loaded.data && typeof loaded.data === 'object') return loaded.data as Record<string, string>;
    throw new Error(`信任记录 ${RECORD_FILE} 读不出来，原样保留：${loaded.state === 'error' ? loaded.message : '不是一个对象'}`);
}

/**
 * HMAC 的密钥：每个用户一串随机字节，第一次用时生成，只有自己能读写（0600）。为什么不记普通的 sha256：.env 里常有
 * DB_PASSWORD=hunter2，拿到记录的人把常见的密码一个个代进去算、对一对，就知道了密码；没有这串字节，HMAC 算不出来。
 */
function trustKey(): Buffer {
    try {
        fs.mkdirSync(HOME, { recursive: true, mode: 0o700 });
        fs.writeFileSync(KEY_FILE, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });   // wx：已经有了就不动它
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const key = Buffer.from(fs.readFileSync(KEY_FILE, 'utf8').trim(), 'hex');
    if (key.length !== 32) throw new Error(`信任记录的密钥 ${KEY_FILE} 坏了：删掉它，Agent 会新建一个（每个文件夹都会再问一次）`);
    return key;
}
