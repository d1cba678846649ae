// Day 11：code-review 技能自带的工具：查看工作区相对 HEAD 的改动。
import { execFile, execFileSync } from 'node:child_process';
import { truncateOutput, type Tool } from '../../tools.ts';

const MAX_CHARS = 4000;   // diff 比一般工具输出长，多留一些

function gitDiff(): Promise<string> {
    return new Promise((resolve) => {
        execFile('git', withoutRepoPrograms(['diff', 'HEAD']), { timeout: 10_000, maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
            if (error) return resolve(`git diff 失败：${(stderr || error.message).trim()}`);
            if (!stdout.trim()) return resolve('（没有未提交的改动）');
            const files = [...stdout.matchAll(/^diff --git a\/(.+?) b\//gm)].map((m) => m[1]);
            resolve(`${files.length} 个文件有改动：${files.join(', ')}\n${truncateOutput(stdout, MAX_CHARS)}`);
        });
    });
}

export const tools: Tool[] = [{
    name: 'git_diff',
    description: '查看当前 git 仓库相对 HEAD 的未提交改动（git diff HEAD）',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    run: gitDiff,
}];

// —— 加固：文件夹自己的 .git/config 不能借 git_diff 运行程序 ——

// Day 11：git_diff 是「只看」的工具，可 git diff 会照仓库的 .git/config 运行程序：core.fsmonitor、diff.external、
// diff.<驱动>.command / textconv、filter.<驱动>.clean / process（.gitattributes 选驱动）、分页器，刷新索引时还有钩子
// post-index-change。.git/ 随文件夹而来（解压的压缩包、别人给的目录），所以这些都在命令行上关掉：命令行的 -c 优先于仓库配置。
// 过滤器的名字是仓库自己起的，先用 git config 列出来（只读配置，不运行程序）再逐个关掉；关掉后 diff 显示的是工作区的原样内容。
// 局限：只管这里列出的 diff 会用到的设置；以后的 git 版本新增的类似设置要再补上
const NO_PROGRAMS = [
    '-c', 'core.fsmonitor=false', '-c', 'diff.external=', '-c', 'core.pager=cat', '-c', 'core.hooksPath=/dev/null', '--no-pager',
];

function withoutRepoPrograms(args: string[]): string[] {
    return [...NO_PROGRAMS, ...filterOff(), ...args, '--no-ext-diff', '--no-textconv'];
}

function filterOff(): string[] {
    let names = '';
    try {
        names = execFileSync('git', ['config', '-z', '--name-only', '--get-regexp', '^filter\\..+\\.(clean|process)$'], { encoding: 'utf8', timeout: 10_000 });
    } catch { /* 没有过滤器（退出码 1）或不在仓库里：没有要关的 */ }
    const drivers = new Set(names.split('\0').filter(Boolean).map((name) => name.slice('filter.'.length, name.lastIndexOf('.'))));
    // -c 在第一个 = 处切开名字和值：名字带 = 的驱动关不掉，宁可不运行
    if ([...drivers].some((d) => d.includes('='))) throw new Error('仓库配置里有名字带「=」的过滤器，关不掉它，没有运行 git diff');
    return [...drivers].flatMap((d) => ['-c', `filter.${d}.clean=`, '-c', `filter.${d}.process=`, '-c', `filter.${d}.required=false`]);
}
