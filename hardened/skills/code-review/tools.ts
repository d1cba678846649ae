// Day 11：code-review 技能自带的工具：查看工作区相对 HEAD 的改动。
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { markedEnv } from '../../process-group.ts';
import { truncateOutput, type Tool } from '../../tools.ts';

const MAX_CHARS = 4000;   // diff 比一般工具输出长，多留一些

async function gitDiff(signal?: AbortSignal): Promise<string> {
    try {
        const top = (await git(['rev-parse', '--show-toplevel'], '.', signal)).replace(/\n$/, '');
        const found = await programsNamed(top, signal);
        if (found.length) return refusal(found);
        const stdout = await git([...NO_PROGRAMS, 'diff', 'HEAD', ...DIFF_FLAGS], '.', signal);
        if (!stdout.trim()) return '（没有未提交的改动）';
        const files = [...stdout.matchAll(/^diff --git a\/(.+?) b\//gm)].map((m) => m[1]);
        return `${files.length} 个文件有改动：${files.join(', ')}\n${truncateOutput(stdout, MAX_CHARS)}`;
    } catch (e) {
        return `git diff 失败：${(e as Error).message}`;
    }
}

export const tools: Tool[] = [{
    name: 'git_diff',
    description: '查看当前 git 仓库相对 HEAD 的未提交改动（git diff HEAD）',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    run: (_args, signal) => gitDiff(signal),
}];

// —— 加固：git 不运行文件夹选的程序 ——

// Day 11：git_diff 是「只看」的工具，可 git diff 会照仓库的配置运行程序：core.fsmonitor、diff.external、diff.<驱动>.command / textconv、
// filter.<驱动>.clean / process（.gitattributes 选驱动）、分页器，刷新索引时还有钩子 post-index-change；子模块里照子模块自己的配置
// 再来一遍（查子模块改没改时在里面跑 git status，diff.submodule=diff 时在里面跑 git diff）。.git/ 随文件夹而来（解压的压缩包、
// 别人给的目录），所以三道防线：配置里写了程序就不运行、说出是哪一项（programsNamed）；命令行上把这些都关掉、不进子模块，
// 只看子模块指向的提交（NO_PROGRAMS、DIFF_FLAGS，命令行的 -c 优先于仓库配置）；git 的环境由我们定（gitEnv）。
// 局限：只认这里列出的设置，以后的 git 版本新增的类似设置要再补上
const NO_PROGRAMS = [
    '-c', 'core.fsmonitor=false', '-c', 'diff.external=', '-c', 'core.pager=cat', '-c', 'core.hooksPath=/dev/null', '--no-pager',
];
const DIFF_FLAGS = ['--no-ext-diff', '--no-textconv', '--ignore-submodules=dirty', '--submodule=short'];

// 会让 git 运行程序的配置项（git config 打印的名字：节和变量名小写，中间的驱动名原样），各自说明 git 什么时候运行它
const PROGRAM_KEYS: [RegExp, string][] = [
    [/^filter\..+\.(clean|smudge|process)$/, '过滤器：git 读写 .gitattributes 选中的文件时运行它'],
    [/^diff\..+\.(command|textconv)$/, 'diff 驱动：git 比较 .gitattributes 选中的文件时运行它'],
    [/^diff\.external$/, '外部 diff：git 比较每个文件时运行它'],
    [/^core\.fsmonitor$/, '文件监视器：git 每次读索引时运行它'],
    [/^(core\.pager|pager\..+)$/, '分页器：git 把输出交给它'],
    [/^core\.hookspath$/, '钩子目录：git 在提交、刷新索引等时候运行里面的程序'],
];
// 这两项也可以是开关：true 用 git 自带的（内置的监视器、默认的分页器），false 关掉；开关不是文件夹选的程序。值为空也是关着
const SWITCH_KEYS = /^(core\.fsmonitor|pager\..+)$/;
const SWITCH = /^(true|false|yes|no|on|off|1|0)?$/i;

/**
 * 仓库 top 和它的每个子模块里，会让 git 运行程序的配置项和钩子，每项一行「在哪个文件 的 哪一项：做什么」。
 * 用 git config --list --show-origin 读（只读配置，不运行程序），不自己解析 .git/config：include.path、includeIf、
 * config.worktree 引进来的项，git diff 会照用，这里也就一项不漏，--show-origin 还说出它实际写在哪个文件里。
 * 子模块只看这个仓库索引里的那一层（git 真正会进去的，不看 .gitmodules 怎么说）；更深的不看：git diff 连第一层都不进去（DIFF_FLAGS）。
 */
async function programsNamed(top: string, signal?: AbortSignal): Promise<string[]> {
    const found = await programsIn(top, signal);
    for (const sub of await submodules(top, signal)) {
        const dir = path.join(top, sub);
        if (fs.existsSync(path.join(dir, '.git'))) found.push(...await programsIn(dir, signal));   // 没有 .git：没检出，git 也进不去
    }
    return found;
}

// config 和 rev-parse 不读索引、不运行程序，也不带 NO_PROGRAMS：那些 -c 会混进列出的配置，core.hooksPath=/dev/null 还会改掉钩子的路径
async function programsIn(dir: string, signal?: AbortSignal): Promise<string[]> {
    const found: string[] = [];
    const entries = (await git(['config', '--list', '--show-origin', '-z'], dir, signal)).split('\0');
    for (let i = 0; i + 1 < entries.length; i += 2) {
        const [key, value] = splitOnce(entries[i + 1], '\n');
        const what = PROGRAM_KEYS.find(([pattern]) => pattern.test(key))?.[1];
        const off = value === '' || (SWITCH_KEYS.test(key) && SWITCH.test(value ?? ''));
        if (what && !off) found.push(`${shown(dir, entries[i].replace(/^file:/, ''))} 的 ${key}：${what}`);
    }
    // 钩子不在配置里，是钩子目录里的可执行文件（core.hooksPath 改了目录时 --git-path 给的就是那里）；git diff 只会运行这一个
    const hook = (await git(['rev-parse', '--git-path', 'hooks/post-index-change'], dir, signal)).replace(/\n$/, '');
    if (executable(path.resolve(dir, hook))) found.push(`钩子 ${shown(dir, hook)}：git 刷新索引时运行它`);
    return found;
}

function refusal(found: string[]): string {
    return 'git_diff 没有运行：文件夹里的 git 配置会让 git 运行程序，文件夹自带的配置不能让 Agent 运行程序：\n' +
        found.map((line) => `- ${line}\n`).join('') +
        '是你自己配的，就在终端里自己运行 git diff HEAD；要让 git_diff 能用，先删掉这几项（git config --unset <名字>，钩子删掉文件）';
}

/**
 * 索引里的子模块（模式 160000 的项）。ls-files 列出全部文件，大仓库有几十 MB：边读边挑，不整个留在内存里。
 * 它要读索引，读索引时 git 就运行 core.fsmonitor：所以带上 NO_PROGRAMS。
 */
function submodules(top: string, signal?: AbortSignal): Promise<string[]> {
    return new Promise((resolve, reject) => {
        const child = spawn('git', [...NO_PROGRAMS, 'ls-files', '-z', '--stage'], { cwd: top, env: gitEnv(), signal, stdio: ['ignore', 'pipe', 'pipe'] });
        const found = new Set<string>();   // 合并冲突时同一个路径有几项
        let partial = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
            const items = (partial + chunk).split('\0');
            partial = items.pop()!;
            for (const item of items) if (item.startsWith('160000 ')) found.add(item.slice(item.indexOf('\t') + 1));
        });
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(0, 4000); });
        child.on('error', reject);
        child.on('close', (code) => code === 0 ? resolve([...found]) : reject(new Error(stderr.trim() || `git ls-files 退出码 ${code}`)));
    });
}

/** 在 cwd 里运行 git：stdout；失败时抛出，消息是 git 的 stderr。10 秒、1 MiB，超了算失败。 */
function git(args: string[], cwd: string, signal?: AbortSignal): Promise<string> {
    return new Promise((resolve, reject) => {
        execFile('git', args, { cwd, env: gitEnv(), signal, timeout: 10_000, maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
            if (error) reject(new Error((stderr || error.message).trim()));
            else resolve(stdout);
        });
    });
}

/**
 * git 的环境：环境里的 GIT_* 一个不传——GIT_CONFIG_COUNT / KEY_n / VALUE_n 和 GIT_CONFIG_PARAMETERS 等于在命令行上加配置
 * （core.fsmonitor=…），GIT_EXEC_PATH 换掉 git 自己的子命令，GIT_DIR 换一个仓库，而它们可能来自文件夹的 .env（信任之后）；
 * 只留 GIT_CEILING_DIRECTORIES，它只让 git 少往上找仓库。不读系统和全局配置（.env 改得了 HOME、XDG_CONFIG_HOME，也就换得了
 * 「全局配置」）。GIT_ALLOW_PROTOCOL 为空：哪种传输都不许——部分克隆（--filter）缺文件内容时 git diff 会去远端取，远端地址可以是
 * ext::<命令>，仓库配置 protocol.ext.allow=always 就运行它；不许之后这样的仓库 git diff 失败。
 * 局限：你全局配置里的 safe.directory、git-lfs 之类的过滤器也不用了
 */
function gitEnv(): NodeJS.ProcessEnv {
    const own = Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_') || name === 'GIT_CEILING_DIRECTORIES');
    return markedEnv({ ...Object.fromEntries(own), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_ALLOW_PROTOCOL: '' });
}

function executable(file: string): boolean {
    try {
        fs.accessSync(file, fs.constants.X_OK);
        return fs.statSync(file).isFile();
    } catch {
        return false;
    }
}

// 配置文件的路径按 Agent 的工作目录写（子模块的在 .git/modules/<名字>/config）
function shown(dir: string, file: string): string {
    return path.relative(process.cwd(), path.resolve(dir, file)) || '.';
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
    const at = text.indexOf(separator);
    return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
