// 基准：从敲下命令到第一个提示符要多久。几种启动方式，同一次运行里量：
//   node dayNN/index.ts   Node 24 自己去掉类型（装进临时目录，scripts/node-versions.ts；装不上时这一行写明跳过）；
//                         再量一遍带 NODE_COMPILE_CACHE 的（node 把去掉类型、编译好的结果存在这个目录，下次直接用）
//   tsx dayNN/index.ts    tsx 命令（npm run dev 就是它），在 Node 24 和本机的 Node（Node 20 的读者只有这条路）上各量一遍
//   tsx hello.ts          只有一行输出的文件：tsx 自己的启动要多久
// 管道输入先写好 /exit：阶段读到第一行时才打出提示符「You › 」，从启动到它出现就是到第一个提示符的时间。
// 每种各跑 5 次取中位数（之前先空跑一次，让 tsx 的转译缓存就位）；机器忙时墙钟会变长，所以也打印开始时的负载。
// 单独运行：npm run bench -- startup。README 里的数字抄这里的输出。
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { STAGES } from '../../scripts/days.ts';
import { installNodes, tempNodeDir } from '../../scripts/node-versions.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const RUNS = 5;
const PROMPT = 'You › ';

/** 启动一次，到 stdout 里出现 marker 为止的秒数；之后等进程自己退出（/exit）。 */
async function firstOutput(node: string, args: string[], cwd: string, marker: string, env: Record<string, string>): Promise<number> {
    const t0 = performance.now();
    const child = spawn(node, args, {
        cwd,
        env: { PATH: process.env.PATH, HOME: cwd, NO_COLOR: '1', OPENAI_API_KEY: 'sk-bench-not-a-real-key', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', ...env },
        stdio: ['pipe', 'pipe', 'ignore'],
    });
    child.stdin.end('/exit\n');
    let out = '';
    let seconds = NaN;
    child.stdout.on('data', (d) => {
        out += d;
        if (Number.isNaN(seconds) && out.includes(marker)) seconds = (performance.now() - t0) / 1000;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    await new Promise((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    if (Number.isNaN(seconds)) throw new Error(`${path.basename(node)} ${args.join(' ')}：没等到「${marker}」，输出：\n${out}`);
    return seconds;
}

async function median(node: string, args: string[], cwd: string, marker: string, env: Record<string, string> = {}): Promise<string> {
    await firstOutput(node, args, cwd, marker, env);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) times.push(await firstOutput(node, args, cwd, marker, env));
    times.sort((a, b) => a - b);
    return `${times[Math.floor(RUNS / 2)].toFixed(2)} s`;
}

async function row(label: string, node: string, args: (stage: string) => string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
    const cells: string[] = [];
    for (const stage of STAGES) cells.push(await median(node, args(path.join(ROOT, stage, 'index.ts')), cwd, PROMPT, env));
    return `| ${label} | ${cells.join(' | ')} |`;
}

export async function run(): Promise<void> {
    const load = os.loadavg().map((n) => n.toFixed(1)).join(' / ');
    console.log(`机器：${os.cpus()[0]?.model ?? '?'}，${os.cpus().length} 核；开始时负载（1/5/15 分钟）${load}`);
    const dir = tempNodeDir();
    const cwd = path.join(dir, 'work');   // 空的工作目录（没有 .env、没有要信任的配置），也当 HOME
    fs.mkdirSync(cwd);
    fs.writeFileSync(path.join(cwd, 'hello.ts'), "const greeting: string = 'hello';\nconsole.log(greeting);\n");
    try {
        const installed = installNodes(dir, ['24']);
        const node24 = 'nodes' in installed ? installed.nodes[0] : undefined;
        const local = { version: process.version, node: process.execPath };
        console.log(`到第一个提示符的时间（中位数，每种 ${RUNS} 次）：\n`);
        console.log(`| 启动方式 | ${STAGES.join(' | ')} |\n|---|${STAGES.map(() => '---:').join('|')}|`);
        if (node24) {
            console.log(await row(`\`node dayNN/index.ts\`（Node ${node24.version}）`, node24.node, (entry) => [entry], cwd));
            const cache = { NODE_COMPILE_CACHE: path.join(dir, 'compile-cache') };
            console.log(await row(`同上，带 \`NODE_COMPILE_CACHE\``, node24.node, (entry) => [entry], cwd, cache));
        } else {
            console.log(`| \`node dayNN/index.ts\`（Node 24） | 跳过：${'skipped' in installed ? installed.skipped : ''} |`);
        }
        for (const { version, node } of node24 ? [node24, local] : [local]) {
            console.log(await row(`\`tsx dayNN/index.ts\`（Node ${version}）`, node, (entry) => [TSX, entry], cwd));
        }
        console.log('');
        for (const { version, node } of node24 ? [node24, local] : [local]) {
            console.log(`\`tsx hello.ts\`（Node ${version}）：${await median(node, [TSX, 'hello.ts'], cwd, 'hello')}`);
        }
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}
