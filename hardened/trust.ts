// —— 加固：文件夹信任 ——
// Day 8：文件夹信任。克隆来的仓库可以自带 .geekagent/ 配置，把根目录设到文件夹之外、放行 run_shell，
// 之后的阶段还能让它一启动就运行 MCP 服务器。这样的设置第一次出现时先问一次；回答按文件夹的真实路径
// 记在用户主目录里。记下的是这些设置的指纹（trust-key.ts）：它们一变（多了一台服务器、换了命令、改了一个值），就再问一次。
// 文件夹的 .env 也是它自己的配置：替密钥选的模型地址（密钥来自环境还是这个 .env 都一样）、要交给 Agent 启动的程序的变量，同样列在问题里。
// 问题里的值都是原样：要运行的、要连的、要交给程序的，答 y 之前都看得见（控制字符转义）；只有你自己的密钥换成 ‹名字›。
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Color } from './color.ts';
import type { DotEnv } from './config.ts';
import { EOF, isYes, type InputQueue } from './input.ts';
import { isObject, type Json } from './json.ts';
import { nameOwnSecrets } from './redact.ts';
import { whatRuns } from './runs-programs.ts';
import { loadJson, writeJsonAtomic } from './storage.ts';
import { fingerprintOf } from './trust-key.ts';

export const TRUST_FILE = path.join(os.homedir(), '.geekagent', 'trusted-folders.json');

interface TrustRecord {
    trusted: boolean;       // 最近记下的回答：答了 y，或在终端里明确答了 n
    fingerprint: string;    // 那次问的时候列出的那些设置的指纹（fingerprintOf）
    trustedBefore?: string[];   // 答过 y 的指纹（新的在后）：设置改回以前信任过的样子，不再问
}

/** 问信任问题要用的前端部分（两个前端都满足）和输入队列：管道里先看下一行是不是回答，再决定交不交给 confirm。 */
export interface TrustUi {
    confirm(question: string): Promise<boolean>;
    print(color: Color, text: string): void;
}

/** 当前文件夹的真实路径：同一个文件夹经不同的符号链接进来，也只问一次。 */
export function currentFolder(): string {
    return fs.realpathSync(process.cwd());
}

/**
 * 信任问题里显示来自配置的字符串：普通的词原样显示；带空格、引号或控制字符的显示成 JSON 字符串，
 * 控制字符成了 \u001b 这样的可见转义，配置里藏的终端控制序列改不了问题的样子。‹ › 也转义：
 * 问题里的 ‹名字› 只能是换掉的你自己的密钥（nameOwnSecrets），配置里写一个假的冒充不了。
 */
export function quote(text: string): string {
    if (/^[\p{L}\p{N}_@%+=:,./~*-]+$/u.test(text)) return text;
    return JSON.stringify(text).replace(/[\u007f-\u009f\u2039\u203a]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * needs：项目配置（.geekagent/）里要信任才生效的设置，每项一行；dotEnv（config.ts 的 loadConfig 返回的）里要信任的设置
 * 在这里补上（都没有就直接算信任）。
 * 记录里有这个文件夹、指纹也相同时不再问，直接用上次记下的回答；指纹以前答过 y 的，也直接算信任。
 * 记录文件坏了：原样保留、不覆盖，当作没有记录——照样问，但这次的回答记不住（说明原因）。
 */
export async function trustFolder(needs: string[], dotEnv: DotEnv, ui: TrustUi, queue: InputQueue): Promise<boolean> {
    const fromEnv = dotEnvLines(dotEnv);
    if (needs.length === 0 && fromEnv.length === 0) return true;
    const folder = currentFolder();
    const { records, fingerprint, problem } = loadRecords([...fromEnv, ...needs]);
    const known = records?.[folder];
    // 旧格式（没有 trustedBefore）记下的「不信任」可能来自管道里随便的一行：不算数，再问一次
    const remembered = isTrustRecord(known) && known.fingerprint === fingerprint && (known.trusted || Array.isArray(known.trustedBefore));
    if (remembered) return rememberedAnswer(known.trusted, ui);
    if (isTrustRecord(known) && trustedFingerprints(known).includes(fingerprint)) return true;
    if (problem) ui.print('error', problem);

    // 每项一行，说明（whatRuns）缩进在它下面；最后一行是问题本身：全屏界面把它放在 [y/N] 那一行
    const item = (line: string) => `  - ${line.replaceAll('\n', '\n    ')}`;
    const question = [
        ...(needs.length ? ['这个文件夹自己的配置（.geekagent/）要：', ...needs.map(item)] : []),
        ...(fromEnv.length ? ['这个文件夹的 .env 要：', ...fromEnv.map(item)] : []),
        '这些设置以你的用户权限生效：只信任你自己写的或检查过的配置。',
        `信任文件夹 ${quote(folder)} 吗？`,
    ].join('\n');
    // 问题只经前端显示在终端上（confirm、print 都写 stdout），不进追踪、对话存档，也不交给模型：所以可以显示原值
    const answer = await askTrust(nameOwnSecrets(question), ui, queue);
    if (answer.note) ui.print('system', answer.note);
    if (records && answer.remember) {
        try {
            const trustedBefore = trustedFingerprints(known).filter((f) => f !== fingerprint);
            if (answer.trusted) trustedBefore.push(fingerprint);
            const record: TrustRecord = { trusted: answer.trusted, fingerprint, trustedBefore: trustedBefore.slice(-MAX_REMEMBERED) };
            writeJsonAtomic(TRUST_FILE, { ...records, [folder]: record });
        } catch (e) {
            ui.print('error', `记不住这次的回答：${(e as Error).message}`);
        }
    }
    return answer.trusted;
}

// 一个文件夹最多记这么多个信任过的指纹（来回切换几套设置够用，记录文件也不会越长越大）
const MAX_REMEMBERED = 20;

/**
 * 读记录、算指纹。指纹算的是问题里的那几行：原值只做了可逆的转义（quote），还没把你的密钥换成 ‹名字›，所以任何一个值变了指纹都变。
 * 记录文件坏了、密钥用不了（trust-key.ts）：records 是 null，problem 说明原因——照样问，只是这次的回答记不住；坏了的文件原样保留。
 */
function loadRecords(settings: string[]): { records: Json | null; fingerprint: string; problem: string } {
    const unremembered = '这次的回答不会被记住';
    let fingerprint: string;
    try {
        fingerprint = fingerprintOf(settings);
    } catch (e) {
        return { records: null, fingerprint: '', problem: `${(e as Error).message}；${unremembered}` };
    }
    const loaded = loadJson(TRUST_FILE);
    if (loaded.state === 'missing') return { records: {}, fingerprint, problem: '' };
    if (loaded.state === 'ok' && isObject(loaded.data)) return { records: loaded.data, fingerprint, problem: '' };
    const detail = loaded.state === 'error' ? `\n${loaded.message}` : '';   // 不是 JSON 时说清坏在哪一行哪一列
    return { records: null, fingerprint, problem: `信任记录 ${TRUST_FILE} 已损坏，原样保留；${unremembered}${detail}` };
}

// .env 里要信任才生效的设置（config.ts 的 DotEnv），每项一行，变量带上它交给程序的值；会让程序运行别的代码的变量，下面多一行说它做什么
function dotEnvLines({ address, vars }: DotEnv): string[] {
    const lines = address ? [`模型地址设为 ${quote(address)}（密钥会发到那里）`] : [];
    for (const name of vars) {
        lines.push(trustItem(`环境变量 ${quoteEnv(name, process.env[name] ?? '')} 交给 Agent 启动的每个程序（命令、MCP 服务器……）`, [name]));
    }
    return lines;
}

/** 信任问题里的一项：一行设置；它交给程序的变量（envNames）里会让程序运行别的代码的，下面各多一行说它做什么（whatRuns）。 */
export function trustItem(line: string, envNames: string[]): string {
    return [line, ...whatRuns(envNames)].join('\n');
}

/**
 * 信任问题里交给程序的一个环境变量（.env 的、Day 15 mcp.json 的）：名字=值，值原样显示。不因为值像密钥、名字带 KEY 就藏起来：
 * NODE_OPTIONS 里夹一段 sk-… 就整个藏起来的话，看不见的正是要运行的 --require。
 */
export function quoteEnv(name: string, value: string): string {
    return quote(`${name}=${value}`);
}

function trustedFingerprints(record: unknown): string[] {
    if (!isTrustRecord(record)) return [];
    const before = Array.isArray(record.trustedBefore) ? record.trustedBefore.filter((f) => typeof f === 'string') : [];
    return record.trusted && !before.includes(record.fingerprint) ? [...before, record.fingerprint] : before;   // 旧记录只有这一个
}

// 用上次记下的回答：不信任时说一声，怎么重新问
function rememberedAnswer(trusted: boolean, ui: TrustUi): boolean {
    if (!trusted) ui.print('system', `（上次在终端里答了 n，已记下；删掉 ${TRUST_FILE} 里这个文件夹的那一项，下次启动会重新询问）`);
    return trusted;
}

/**
 * 读回答。只有 y / yes 算信任；不信任只在终端里明确答了 n / no 时才记下——管道里的 n、输入结束、Ctrl+C、空回车、
 * 别的字都只管这一次，下次启动还会再问：一个脚本喂进来的无关行不该永久关掉这个文件夹的配置。
 * 管道里的下一行不是 y / yes / n / no 时不当作回答、也不取走，留给之后当普通输入（比如第一行就是要问模型的话）；
 * 终端里提问之后打的一行是冲着问题来的，照常取走。
 */
async function askTrust(question: string, ui: TrustUi, queue: InputQueue): Promise<{ trusted: boolean; remember: boolean; note: string }> {
    const terminal = Boolean(process.stdin.isTTY);
    const again = '这次按不信任运行，不记下；下次启动还会再问';
    if (!terminal) {
        // 先显示问题再等下一行：stdin 是管道时也可能是人在打字（编辑器、IDE 的控制台），不能让他对着没有问题的屏幕干等。
        // 问题显示全文：管道里没法回答 d 分页
        ui.print('tool', `${question}\n[y/N]`);
        const next = await queue.peek();
        if (next === EOF || !ANSWER.test(next)) {
            const line = next === EOF ? '' : next.trim();
            const shown = quote(line.length > 40 ? `${line.slice(0, 40)}…` : line);   // 管道里的一行可能很长，说清是哪一行就够了
            const why = next === EOF ? '输入已经结束' : `下一行 ${shown} 不是 y 或 n，留作普通输入`;
            return { trusted: false, remember: false, note: `（没有回答：${why}。${again}；管道输入时把 y 或 n 放在第一行）` };
        }
        await queue.next();   // 是回答：取走，像确认提示那样回显
        ui.print('system', next.trim());
        if (isYes(next)) return { trusted: true, remember: true, note: '' };
        return { trusted: false, remember: false, note: `（管道里的 n 只管这一次：${again}。只有在终端里答的 n 才记下）` };
    }
    if (await ui.confirm(question)) return { trusted: true, remember: true, note: '' };
    const said = queue.last === EOF || queue.last === undefined ? '' : queue.last.trim();
    if (/^(n|no)$/i.test(said)) return { trusted: false, remember: true, note: `（已记下：不信任。删掉 ${TRUST_FILE} 里它的那一项，下次启动会重新询问）` };
    return { trusted: false, remember: false, note: `（没有明确答 n：${again}；答 n 才记住不信任）` };
}

// 算作回答的一行：y / yes / n / no（不分大小写）
const ANSWER = /^\s*(y|yes|n|no)\s*$/i;

function isTrustRecord(value: unknown): value is TrustRecord {
    return isObject(value) && typeof value.trusted === 'boolean' && typeof value.fingerprint === 'string';
}
