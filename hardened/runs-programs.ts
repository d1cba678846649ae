// —— 加固：会让程序运行别的代码的环境变量 ——
// Day 8：会让程序运行别的代码的环境变量。信任问题里这样的变量多一行，说它让哪个程序运行什么：
// NODE_OPTIONS=--require ./.hooks/h.cjs 看上去只是个选项，答 y 之后 Agent 启动的每个 node 都先执行 h.cjs；
// GIT_CONFIG_KEY_0=core.fsmonitor 配上 GIT_CONFIG_VALUE_0，每个 git status 都运行它写的命令。
// 按名字认，规则只写在这张表里（.env 的变量和 Day 15 mcp.json 的 env 都经过这里）。
// 局限：列的是常见的几类，认不全（比如换了 XDG_CONFIG_HOME，git 就读另一份配置）；不在表里的变量照样列在问题里，只是没有这一行。
const RUNS: [RegExp, string][] = [
    [/^NODE_OPTIONS$/, 'node 每次启动都带上这些选项，--require、--import 会先执行指定的文件'],
    [/^(BASH_ENV|ENV)$/, 'bash / sh 运行脚本之前先执行它指向的文件'],
    [/^(LD|DYLD)_/, '程序启动时先加载它指定的库（LD_PRELOAD、DYLD_INSERT_LIBRARIES……）'],
    [/^GIT_/, 'git 按它读配置、运行命令（比如 GIT_CONFIG_KEY_0 / VALUE_0 设了 core.fsmonitor，之后每个 git 命令都运行它写的程序）'],
    [/^PYTHON/, 'python 启动时按它加载代码（PYTHONPATH、PYTHONSTARTUP……）'],
    [/^(PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB)$/, 'perl / ruby 启动时按它加载模块'],
    [/^(JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS)$/, 'java 启动时带上这些选项，-javaagent 会先加载指定的代码'],
    [/^npm_config_/i, 'npm 按它读配置（script-shell、node-options……）：npm 运行的每个脚本都受它影响'],
    [/^(EDITOR|VISUAL|PAGER|MANPAGER|BROWSER|SHELL|LESSOPEN)$/, '程序要打开编辑器、分页器、浏览器或 shell 时运行它写的命令'],
    [/_(COMMAND|ASKPASS)$/, '名字说明它是一条命令：用到它的程序会运行它'],
    [/^PATH$/, '程序按它找命令：排在前面的目录里的同名程序先被运行'],
];

/** 这些变量里会让程序运行别的代码的，每个一行「名字 会让程序运行别的代码：做什么」；别的变量没有这一行。 */
export function whatRuns(names: string[]): string[] {
    return names.flatMap((name) => {
        const what = RUNS.find(([pattern]) => pattern.test(name))?.[1];
        return what ? [`${name} 会让程序运行别的代码：${what}`] : [];
    });
}
