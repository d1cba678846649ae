// Day 8：密钥脱敏。发给模型、写进文件和追踪的文字里，密钥被替换成 [REDACTED:NAME]。确认提示不脱敏（见分隔线下的 withSecretNote、nameOwnSecrets）。
// 调用方必须先脱敏整段文字、再分页或截断：切在密钥中间的半截，这里就认不出来了。
import fs from 'node:fs';
import { parseEnv } from 'node:util';
import { realEnv } from './config.ts';
import { CONFIG_CAP, readRegularFile } from './regular-file.ts';

// 名字像密钥的变量；AUTHOR（如 GIT_AUTHOR_NAME）不算。PASS、PWD 只认单独的一段（DB_PASS、MYSQL_PWD）：PWD、OLDPWD 是当前目录
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|(^|_)PASS(_|$)|_PWD(_|$)|(^|_)PAT(_|$)|(^|_)AUTH(?!OR)/i;

/** 名字像密钥，或者值像密钥（带密码的 URL、认得出格式的令牌，如 CI_JOB_JWT=eyJ…）。MCP 服务器的环境也按这条规则过滤。 */
export function isSecretVar(name: string, value: string): boolean {
    return SECRET_NAME.test(name) || secretShaped(value);
}

/** 环境变量（和 .env）里密钥的值换成 [REDACTED:变量名]；不在任何变量里、但认得出格式的密钥换成 [REDACTED]。 */
export function redact(text: string): string {
    const { names, pattern } = knownSecrets();
    if (pattern) text = text.replace(pattern, (v) => `[REDACTED:${names.get(v)}]`);
    return redactShapes(text);
}

// —— 加固：URL 里的密码、常见密钥格式、密钥值的收集与缓存、截断时只扫要留下的一段 ——

// scheme://user:password@host 里的密码
const URL_PASSWORD = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)([^\s/@]+)@/i;
const URL_PASSWORDS = new RegExp(URL_PASSWORD, 'gi');

// 值本身像密钥：带密码的 URL，或下面认得出格式的令牌（search 从头找，不受 g 标志留下的 lastIndex 影响）
function secretShaped(value: string): boolean {
    return URL_PASSWORD.test(value) || value.search(TOKEN_SHAPES) !== -1;
}

const AWS_KEY_ID = /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/;
// 私钥块：BEGIN 一行，可有 Proc-Type: 这样的头行和一个空行，然后全是 base64 的行，到 END 一行为止。换行也可以是 JSON 字符串里
// 写成的 \n（服务账号的 .json），行首可以缩进（YAML）或带 diff 的 + / -（git diff 的输出）。正文不像 base64 就不算：
// 两行标记中间夹着的命令不会被当成私钥换掉。
// 正文一直到文字末尾也算（分页、redactHead 切下的一段里，半个私钥也是密钥），但只在末尾之前全是 base64 行时。
// 各段用的字符互不重叠（base64 里没有 -、:、空白和 \；行首的 + 算进 base64，不另算），匹配不会来回试；行数有上限
// （最长的 RSA 私钥也只有一百来行）：一次尝试最多看 400 行，1 MB 的刁钻输入（几十万个短行）也在 1 ms 以内
const NL = String.raw`(?:\r?\n|(?:\\r)?\\n)[ \t]*`;
const B64 = '[A-Za-z0-9+/=]+';
const PRIVATE_KEY = new RegExp(`-----BEGIN[A-Z ]*PRIVATE KEY-----${NL}(?:[-+]?[A-Za-z][A-Za-z-]*: [^\\r\\n\\\\]*${NL}){0,8}(?:-?${NL})?(?:-?${B64}${NL}){0,400}(?:(?:-?${B64})?$|[-+]?-----END[A-Z ]*PRIVATE KEY-----)`);
// 常见密钥格式：就算不在任何变量里（比如写在某个文件里），也认得出来。名字是确认提示里说的「像是密钥（…）」。
// 每种都只从一串字符的开头匹配（前面不是同类字符），否则像 eyJeyJeyJ… 这样的长串会让正则变成平方级。
// 每种各占合并后正则的一个捕获组（自己不能再有捕获组），withSecretNote 据此知道是哪一种
const SHAPES: [string, RegExp][] = [
    ['API 密钥', /(?<![\w-])sk-[\w-]*[A-Za-z0-9]{20}/],                         // OpenAI、DeepSeek 等
    ['GitHub 令牌', /(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,})/],
    ['AWS 密钥', AWS_KEY_ID],
    ['Slack 令牌', /(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}/],
    ['JWT', /(?<![\w-])eyJ[\w-]{5,}\.eyJ[\w-]{5,}\.[\w-]*/],
    ['私钥', PRIVATE_KEY],
];
const TOKEN_SHAPES = new RegExp(SHAPES.map(([, r]) => `(${r.source})`).join('|'), 'g');
// AWS Secret Key 只是 40 个 base64 字符，单看认不出；和 Key ID 出现在同一段文字里时才当作密钥（要求大小写都有，避开 git 哈希）
const AWS_SECRET = /(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

function redactShapes(text: string): string {
    if (AWS_KEY_ID.test(text)) text = text.replace(AWS_SECRET, '[REDACTED]');
    return text.replace(TOKEN_SHAPES, '[REDACTED]').replace(URL_PASSWORDS, '$1[REDACTED]@');
}

/** 这些变量里的密钥值 → 变量名（同一个值在几处时记第一处）：名字或值像密钥的变量（isSecretVar），带密码的 URL 里的密码也单独记。 */
function secretValues(vars: [string, string | undefined][]): Map<string, string> {
    const found = new Map<string, string>();
    for (const [name, value] of vars) {
        if (typeof value !== 'string' || !isSecretVar(name, value)) continue;
        if (!found.has(value)) found.set(value, name);
        const password = URL_PASSWORD.exec(value)?.[2];
        if (password && !found.has(password)) found.set(password, name);   // 密码也可能单独出现在别处
    }
    return found;
}

type Secrets = { names: Map<string, string>; pattern: RegExp | null; longest: number };

// 所有值合成一个正则：长的在前，一个值包含另一个值时同一位置先匹配长的，不会只换一半。
// 太短的值（如 KEYTIMEOUT=1）会把普通字符也替换掉，跳过
function compile(found: Map<string, string>): Secrets {
    const secrets = [...found].filter(([value]) => value.length >= 4).sort((a, b) => b[0].length - a[0].length);
    const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = secrets.length ? new RegExp(secrets.map(([value]) => escape(value)).join('|'), 'g') : null;
    return { names: new Map(secrets), pattern, longest: secrets[0]?.[0].length ?? 0 };
}

// 密钥值只在 .env 变了时重新收集：第一次用到时读一遍、建好一个合并的正则，之后只看 .env 的 stat 变没变。
// 每次都重读 .env、重建正则的话，每次 MCP 调用多花约 60 µs，一段 20 MiB 的结果多花约 85 ms（npm run bench -- mcp）。
// 环境变量在启动时定下，运行中不变。两边不同时都算
let known: Secrets | undefined;

function knownSecrets(): Secrets {
    if (dotEnvChanged()) known = undefined;
    known ??= compile(secretValues([...Object.entries(process.env), ...Object.entries(dotEnvSecrets())]));
    return known;
}

// Day 8：没有信任的文件夹，它的 .env 不是密钥的来源：克隆来的 .env 写上 NPM_TOKEN="x; touch X"，含这段文字的命令、输出
// 就会被当成「你的密钥」换掉。信任问题答完之前照旧算（交给模型的文字多换掉几处不要紧；信任问题本身不用它，见 nameOwnSecrets）。
// 不信任时只留下 Agent 自己在用的模型密钥（它可能正来自这个 .env）：它每次都发往模型服务，在哪里出现都是密钥
let distrustedKey: string | null = null;

/** 信任问题答了不信任（index.ts）：apiKey 是 Agent 在用的模型密钥。从下一次脱敏起重新收集，.env 里只算这一个。 */
export function distrustDotEnv(apiKey: string): void {
    distrustedKey = apiKey;
    known = undefined;
}

// 收集密钥时用的 .env 变量；没有 .env、读不了（命名管道、设备、太大，启动时已经说过）时是空的
function dotEnvSecrets(): NodeJS.Dict<string> {
    if (distrustedKey !== null) return { OPENAI_API_KEY: distrustedKey };
    try {
        return parseEnv(readRegularFile('.env', CONFIG_CAP));
    } catch {
        return {};
    }
}

let dotEnvStamp: string | undefined;
let stampChecked = false;

/**
 * Agent 运行中 .env 里加了密码（用户改的，或者经确认的 write）：从下一次脱敏起就认得它。看修改时间、大小和 inode
 * （编辑器常常写新文件再改名）；同一段同步代码里（一行追踪里的几百个字符串）只 stat 一次，每次约几 µs。
 */
function dotEnvChanged(): boolean {
    if (stampChecked) return false;
    stampChecked = true;
    queueMicrotask(() => (stampChecked = false));
    const st = fs.statSync('.env', { throwIfNoEntry: false });
    const stamp = st ? `${st.mtimeMs}:${st.ctimeMs}:${st.size}:${st.ino}` : '';
    const changed = dotEnvStamp !== undefined && stamp !== dotEnvStamp;
    dotEnvStamp = stamp;
    return changed;
}

/**
 * 只要脱敏后的前 n 个字符时（截断），只扫前 n 个字符再加一段比最长密钥还长的余量：截断处照样不会留下认不出的半截，
 * 而一段 20 MiB 的 MCP 结果不必整段扫一遍（整段扫要多花约 85 ms，npm run bench -- mcp）。返回脱敏后的这一段和没扫的字符数。
 */
export function redactHead(text: string, n: number): { head: string; rest: number } {
    const keep = n + knownSecrets().longest + 4096;
    return text.length <= keep ? { head: redact(text), rest: 0 } : { head: redact(text.slice(0, keep)), rest: text.length - keep };
}

// 交给模型的文件内容（read，之后的 search、收录本地文件）：先照 redact，再逐行看像 .env 的行（NAME=value、
// export NAME=value、# NAME=value），名字或值像密钥（isSecretVar）的，值换成 [REDACTED:NAME]。redact 只认得此刻生效的值：
// 注释掉的、被后面一行覆盖的旧值不在环境里，原样交给模型就漏了。不管文件叫什么都这样看。= 前不能有空格（shell 和 .env 的
// 写法；代码里的 PASSWORD_MIN = 8 不算）；值为空的不换（看得出没填），已经换成 [REDACTED:…] 的不再换（留着认出的变量名）。
// 局限：值跨几行的（引号里换行）只换掉第一行
const ENV_LINE = /^([ \t]*(?:#+[ \t]*)?(?:export[ \t]+)?)([A-Za-z_][A-Za-z0-9_]*)=([^\r\n]*)/gm;
const ALREADY = /^(["']?)\[REDACTED(:[^\]]*)?\]\1$/;

export function redactFileContent(text: string): string {
    return redactEnvLines(redact(text));
}

/** redactFileContent 的第二步：已经 redact 过的文字里，像 .env 的行逐行看。 */
export function redactEnvLines(text: string): string {
    return text.replace(ENV_LINE, (line, lead: string, name: string, raw: string) => {
        const value = raw.trim();
        return value && !ALREADY.test(value) && isSecretVar(name, value) ? `${lead}${name}=[REDACTED:${name}]` : line;
    });
}

/**
 * 含密钥的文件：交给模型之前脱敏会改动它（像 .env 的密钥行、你的密钥值、认得出格式的密钥）。从它的内容算出来的回答
 * （片段找到没有、新内容和原来的一样不一样、搜索命中没有）都是猜密钥的神谕：patch / write 先问（files.ts），search 不搜它（search.ts）
 */
export function holdsSecrets(text: string): boolean {
    return redactFileContent(text) !== text;
}

/** 一行（不含换行）从头到尾像 NAME=value，而且值不空、像密钥（isSecretVar）：这一行的值要换掉，不管它是不是已经换过一处。 */
export function secretEnvLine(line: string): boolean {
    const m = ENV_HEAD.exec(line);
    const value = m && m[0].length === line.length ? m[3].trim() : '';
    return value !== '' && isSecretVar(m![2], value);
}
const ENV_HEAD = new RegExp(ENV_LINE.source);   // 同一个模式，不带 g、m：只看一行的开头

/** 文字里认得出的每一处密钥（已知的值、认得出格式的令牌、网址里的密码）的起止位置，可能互相重叠。 */
export function secretSpans(text: string): [number, number][] {
    const { pattern } = knownSecrets();
    const spans: [number, number][] = [];
    for (const re of [pattern, TOKEN_SHAPES, URL_PASSWORDS]) {
        for (const m of re ? text.matchAll(re) : []) spans.push([m.index!, m.index! + m[0].length]);
    }
    return spans;
}

/** 已知的密钥值里最长的一个有多长：边读边脱敏时留的余量比它长。 */
export function longestSecret(): number {
    return knownSecrets().longest;
}

/**
 * 一段带 JSON 的文字（协议追踪的一行）：字符串里的 \"、\/、\u00fc 这类转义会把密钥拆成认不出的写法，
 * 所以带转义的字符串先解码再脱敏，换掉了东西的重新编码，其余的保留原来的写法。逐个字符串解码，不递归解析整个 JSON：
 * 多深的嵌套都不怕。局限：流式回复里被切进几个事件的密钥，一行一行地看认不出来（追踪里下一次请求带着整条消息，那里认得出）。
 */
export function redactJsonText(text: string): string {
    text = redact(text);
    if (!text.includes('\\')) return text;   // 没有转义：上面那一遍已经看到了原文
    let out = '';
    let done = 0;
    for (let start = text.indexOf('"'); start !== -1; start = text.indexOf('"', start)) {
        let end = start + 1;
        let escaped = false;
        for (; end < text.length && text.charCodeAt(end) !== 0x22; end++) {
            if (text.charCodeAt(end) === 0x5c) {
                escaped = true;
                end++;
            }
        }
        if (end >= text.length) break;   // 没有结尾的引号：不是 JSON 字符串
        if (escaped) {
            out += text.slice(done, start) + redactLiteral(text.slice(start, end + 1));
            done = end + 1;
        }
        start = end + 1;
    }
    return out + text.slice(done);
}

function redactLiteral(literal: string): string {
    let value: unknown;
    try {
        value = JSON.parse(literal);
    } catch {
        return literal;   // 不合法的转义：谁也不会把它读成这个值
    }
    if (typeof value !== 'string') return literal;
    const clean = redact(value);
    return clean === value ? literal : JSON.stringify(clean);
}

/**
 * 确认提示、diff 显示原文、不脱敏：它们只给终端前的用户看，而脱敏换掉的正是攻击者可以挑的文字
 * （两行私钥标记中间夹一条命令）。原文里有密钥时，在最后加一行说出有几处、是哪些：
 * 「其中 1 处是你的密钥 OPENAI_API_KEY，1 处像是密钥（私钥）」。认密钥的规则和 redact 是同一份（已知的值、认得出的格式）。
 * 加在最后一行：太长的提示只显示开头和最后一行（input.ts 的 askPaged），这一行总看得到。
 */
export function withSecretNote(prompt: string): string {
    const { names, pattern } = knownSecrets();
    const mine = pattern ? [...prompt.matchAll(pattern)].map((m) => names.get(m[0])!) : [];
    const rest = pattern ? prompt.replace(pattern, ' ') : prompt;   // 已经按名字报过的值，不再按格式报一遍
    const kinds = [...rest.matchAll(TOKEN_SHAPES)].map((m) => SHAPES[m.slice(1).findIndex((g) => g !== undefined)][0]);
    kinds.push(...[...rest.matchAll(URL_PASSWORDS)].map(() => '网址里的密码'));
    if (AWS_KEY_ID.test(rest)) kinds.push(...[...rest.matchAll(AWS_SECRET)].map(() => 'AWS 密钥'));
    const parts: string[] = [];
    const unique = (list: string[]) => [...new Set(list)].join('、');
    if (mine.length) parts.push(`${mine.length} 处是你的密钥 ${unique(mine)}`);
    if (kinds.length) parts.push(`${kinds.length} 处像是密钥（${unique(kinds)}）`);
    return parts.length ? `${prompt}\n（上面显示的是原文，其中 ${parts.join('，')}）` : prompt;
}

/**
 * 信任问题（trust.ts）显示原文，只有一处例外：等于你自己的一个密钥的那一段换成 ‹变量名›——只换那一段、不换整个值，
 * 值像密钥、名字带 KEY 都不是换掉它的理由（GIT_CONFIG_KEY_0=core.fsmonitor 要看得见）。「你自己的」只认启动时的真实环境
 * （config.ts 的 realEnv）：问题出现时这个文件夹的 .env 还没有被信任（问的正是它），要是它的值也算，克隆来的 .env 写一行
 * NPM_TOKEN="--require ./x.cjs"，NODE_OPTIONS 里同样的一段就成了 ‹NPM_TOKEN›，要运行的东西又藏起来了。问题里带引号的值写成了 JSON 字符串（trust.ts 的 quote），
 * 密钥里的 "、\ 和换行成了 \"、\\、\n，所以转义后的写法也认。
 */
export function nameOwnSecrets(text: string): string {
    if (!own) {
        const mine = secretValues(Object.entries(realEnv));
        for (const [value, name] of [...mine]) {
            const escaped = JSON.stringify(value).slice(1, -1);
            if (!mine.has(escaped)) mine.set(escaped, name);
        }
        own = compile(mine);
    }
    const { names, pattern } = own;
    return pattern ? text.replace(pattern, (value) => `‹${names.get(value)}›`) : text;
}

let own: Secrets | undefined;   // 真实环境运行中不变：收集一次
