// Day 11：code-review 技能自带的工具 git_diff：工作区相对 HEAD 的改动。skills.ts 启用技能时注册它（默认先问），停用时撤下。
import { execFile, execFileSync } from 'node:child_process';
import type { Tool } from '../../tools.ts';

export const tools: Tool[] = [{
    name: 'git_diff',
    description: '查看当前 git 仓库相对 HEAD 的未提交改动（git diff HEAD）：先列出改了哪些文件，再是 diff 本身',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    run: (_args, signal) => gitDiff(signal),
}];

// 「只看」的 git diff 也会照仓库的 .git/config 运行程序：core.fsmonitor、diff.external、diff.<驱动>.textconv、
// filter.<驱动>.clean / process（.gitattributes 选驱动）、分页器，刷新索引时还有钩子；子模块里照子模块自己的配置再来一遍。.git/ 随
// 文件夹而来（解压的压缩包、别人给的目录），所以都在命令行上关掉（-c 优先于仓库的配置），子模块不进去看。git 以后新加的同类设置要再补上
const NO_PROGRAMS = [
    '--no-pager', '-c', 'core.fsmonitor=false', '-c', 'diff.external=', '-c', 'core.pager=cat', '-c', 'core.hooksPath=/dev/null',
];

function gitDiff(signal: AbortSignal): Promise<string> {
    const args = [...NO_PROGRAMS, ...filtersOff(), 'diff', 'HEAD', '--no-ext-diff', '--no-textconv', '--ignore-submodules'];
    return new Promise((resolve) => {
        // 10 秒、1 MiB：超了就报错；交给模型的照旧只有开头 2000 个字符（execTool 先脱敏再截断），所以开头先列出文件
        execFile('git', args, { signal, timeout: 10_000, maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
            if (error) return resolve(`git diff 失败：${(stderr || error.message).trim()}`);
            if (!stdout.trim()) return resolve('（没有未提交的改动）');
            const files = [...stdout.matchAll(/^diff --git a\/(.+?) b\//gm)].map((m) => m[1]);
            resolve(`${files.length} 个文件有改动：${files.join(', ')}\n${stdout}`);
        });
    });
}

/**
 * 过滤器的名字是仓库自己起的：先用 git config 列出来（只读配置，不运行程序），再逐个关掉；关掉之后 diff 显示的是工作区的原样内容。
 * -c 在第一个 = 处切开名字和值：名字里带 = 的关不掉，宁可不运行（抛出，execTool 把它变成「工具执行失败：…」）。
 */
function filtersOff(): string[] {
    let names = '';
    try {
        const pattern = '^filter\\..+\\.(clean|process)$';
        names = execFileSync('git', ['config', '-z', '--name-only', '--get-regexp', pattern], { encoding: 'utf8' });
    } catch { /* 退出码 1：没有过滤器；或者不在仓库里：没有要关的 */ }
    const drivers = new Set(names.split('\0').filter(Boolean).map((name) => name.slice('filter.'.length, name.lastIndexOf('.'))));
    if ([...drivers].some((d) => d.includes('='))) throw new Error('仓库配置里有名字带「=」的过滤器，关不掉它，没有运行 git diff');
    return [...drivers].flatMap((d) => ['-c', `filter.${d}.clean=`, '-c', `filter.${d}.process=`, '-c', `filter.${d}.required=false`]);
}
