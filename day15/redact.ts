// Day 8：密钥脱敏。交给模型的工具结果里，你的密钥换成 [REDACTED:变量名]：`env`、`cat .env`、一个写着密钥的配置文件，
// 结果都会原样发给服务商。认的是「值」：名字像密钥的变量（环境变量和 .env 里的）的值，在哪里出现都换掉。
// 确认问题不脱敏：它只给终端前的你看，要看的正是原文（信任问题里只把你自己的密钥换成 ‹名字›，见 nameOwnSecrets）。
import fs from 'node:fs';
import { parseEnv } from 'node:util';

// 名字像密钥的变量。AUTH 后面跟 OR 的不算（GIT_AUTHOR_NAME）；PASS 只认单独的一段（DB_PASS），不认 PASSAGE 这样的词
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|(^|_)PASS(_|$)|(^|_)AUTH(?!OR)/i;

// 模块载入时的环境：index.ts 调用 loadConfig()、把 .env 里的 GEEKAGENT_* 放进环境之前的样子。ES 模块先执行完所有
// import 的模块，才执行 index.ts 自己的代码，所以这里拿到的是启动 Agent 时真实的环境：只有它里面的密钥才算「你自己的」
const REAL_ENV: NodeJS.Dict<string> = { ...process.env };

/** 这些变量里的密钥：值 → 变量名，长的在前（一个值包含另一个值时先换长的，不会只换一半）。太短的值（KEYTIMEOUT=1）不算。 */
function secretsIn(vars: NodeJS.Dict<string>): [string, string][] {
    const found = new Map<string, string>();
    for (const [name, value] of Object.entries(vars)) {
        if (value && value.length >= 4 && SECRET_NAME.test(name) && !found.has(value)) found.set(value, name);
    }
    return [...found].sort((a, b) => b[0].length - a[0].length);
}

// 当前文件夹的 .env：模型密钥可能就写在这里（config.ts 不把它放进环境变量），没有信任的文件夹的变量也不在环境里
function dotEnv(): NodeJS.Dict<string> {
    try {
        return parseEnv(fs.readFileSync('.env', 'utf8'));
    } catch {
        return {};   // 没有 .env，或者读不了（启动时 config.ts 已经说过）
    }
}

/** 交给模型之前：环境变量和 .env 里的密钥值换成 [REDACTED:变量名]。每次都重新收集：运行中 .env 改了也认得。 */
export function redact(text: string): string {
    for (const [value, name] of secretsIn({ ...dotEnv(), ...process.env })) text = text.replaceAll(value, `[REDACTED:${name}]`);
    return text;
}

/**
 * 信任问题里的值原样显示，只有一处例外：等于你自己的一个密钥的那一段换成 ‹变量名›——只换那一段、不换整个值：
 * NODE_OPTIONS 里夹着一段像密钥的字，整个藏起来的话，看不见的正是要运行的 --require。「你自己的」只认真实的环境：
 * 问的正是这个文件夹的 .env，它写的值不能算（否则它写一行 X_TOKEN=--require ./x.cjs，同样的一段就成了 ‹X_TOKEN›）。
 */
export function nameOwnSecrets(text: string): string {
    for (const [value, name] of secretsIn(REAL_ENV)) text = text.replaceAll(value, `‹${name}›`);
    return text;
}
