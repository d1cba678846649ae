// npm run check -- <天> [文件夹] [--only N] [--init] [--verbose] [--tty] [--quiet 毫秒]
// 用黑盒检查跑学习者自己写的 Agent（文件夹/index.ts）：第 1 天到第 N 天（或只第 N 天）每个想法一项，✔ / ✘（选做的前面加 ☆）。
// 文件夹缺省是本仓库里含第 N 天的阶段。--init：把第 N 天之前的阶段复制进文件夹，作为自己写第 N 天的起点。
// 有 ✘ 时，完整的运行记录写进 <文件夹>/.check/last-run.log（--verbose 同时打印出来）。
// --tty：在伪终端里跑（只肯在终端里跑的 Agent，比如原教程第 7 天起的全屏界面，见 check/tty.ts）；
// --quiet：输出静了多久才算 Agent 在等输入（缺省 200 毫秒；--tty 时至少 1 秒）。
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatResult, summary } from './check/format.ts';
import { initFolder } from './check/init.ts';
import { exitCode, runChecks } from './check/report.ts';
import { runLog } from './check/runlog.ts';
import { TTY, ttyUnsupported } from './check/tty.ts';
import { STAGE_DAYS } from './days.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// 文件夹相对于敲命令的目录：npm run 把 cwd 换成了仓库根目录，原来的在 INIT_CWD 里
const HERE = process.env.INIT_CWD ?? process.cwd();
const USAGE = '用法：npm run check -- <天 1–15> [文件夹] [--only N] [--init] [--verbose] [--tty] [--quiet 毫秒]\n例如：npm run check -- 4 my-day04';

/** 本仓库里含第 day 天的阶段。 */
const stageFor = (day: number): string => Object.keys(STAGE_DAYS).find((stage) => STAGE_DAYS[stage].includes(day))!;

function fail(message: string): never {
    console.error(message);
    process.exit(2);
}

async function main(argv: string[]): Promise<number> {
    const flags = { only: undefined as number | undefined, init: false, verbose: false, tty: false, quiet: undefined as number | undefined };
    const rest: string[] = [];
    for (let i = 0; i < argv.length; i++) {
        if (argv[i] === '--init') flags.init = true;
        else if (argv[i] === '--verbose') flags.verbose = true;
        else if (argv[i] === '--tty') flags.tty = true;
        else if (argv[i] === '--only') flags.only = Number(argv[++i]);
        else if (argv[i] === '--quiet') flags.quiet = Number(argv[++i]);
        else if (argv[i] === '-h' || argv[i] === '--help') return (console.log(USAGE), 0);
        else rest.push(argv[i]);
    }
    const day = Number(rest[0]);
    if (!Number.isInteger(day) || day < 1 || day > 15 || rest.length > 2) fail(USAGE);
    if (flags.only !== undefined && (!Number.isInteger(flags.only) || flags.only < 1 || flags.only > day)) {
        fail(`--only 要跟 1–${day} 之间的一天\n${USAGE}`);
    }
    if (flags.quiet !== undefined && !(flags.quiet >= 0)) fail(`--quiet 要跟一个毫秒数\n${USAGE}`);
    const folder = rest[1] ? path.resolve(HERE, rest[1]) : path.join(ROOT, stageFor(day));
    if (flags.init) {
        if (!rest[1]) fail(`--init 要给一个新文件夹，例如：npm run check -- ${day} my-day${String(day).padStart(2, '0')} --init`);
        return await initFolder(day, folder, ROOT);
    }
    const entry = path.join(folder, 'index.ts');
    if (!fs.existsSync(entry)) fail(`找不到 ${entry}：检查从文件夹里的 index.ts 启动你的 Agent（新起一个文件夹：npm run check -- ${day} <文件夹> --init）`);
    const unsupported = flags.tty ? ttyUnsupported() : null;
    if (unsupported) fail(unsupported);
    const spawner = flags.tty ? TTY : undefined;

    const days = flags.only !== undefined ? [flags.only] : Array.from({ length: day }, (_, i) => i + 1);
    console.log(`检查 ${path.relative(HERE, entry)}：${days.length === 1 ? `第 ${days[0]} 天` : `第 1–${day} 天`}${spawner ? `（在伪终端里跑）` : ''}\n`);
    const said = new Set<string>();
    const results = await runChecks({ entry, days, spawner, quietMs: flags.quiet, onResult: (r) => console.log(formatResult(r, said)) });
    console.log(`\n${summary(results, days)}`);

    // 有 ✘ 就写下整个运行记录；都通过时删掉旧的，免得看到上一次的
    const log = path.join(folder, '.check', 'last-run.log');
    if (results.some((r) => !r.ok)) {
        const text = runLog(results);
        fs.mkdirSync(path.dirname(log), { recursive: true });
        fs.writeFileSync(log, text);
        console.log(`完整的运行记录（打的每一行、输出、模型收到的每个请求和回复、MCP 线上）：${path.relative(HERE, log) || log}`);
        if (flags.verbose) console.log(`\n${text}`);
    } else {
        fs.rmSync(log, { force: true });
    }
    return exitCode(results);
}

process.exitCode = await main(process.argv.slice(2));
