// CI 的一步（npm run test:node）：每个阶段不靠 tsx、用 node 直接跑也行。装 Node 22.18.0 和当前的 Node 24
// （scripts/node-versions.ts，装进临时目录），对每一个：
//   1. 每个阶段的演示，并核对章节里的记录：<node> --test test/repo/demo.test.ts（演示经 node dayNN/index.ts 启动阶段）；
//   2. 每课和加固版的第一轮对话：<node> dayNN/index.ts、<node> hardened/index.ts，管道输入「你好」和 /exit，对着本机的假模型，要看到回答、bye、退出码 0。
// 其余的测试仍在本机的 Node 20 上经测试加载器和 tsx 跑（npm test）。软件源连不上时说一行并跳过（退出码 0）。
// 运行：npx tsx test/node/run.ts
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installNodes, tempNodeDir } from '../../scripts/node-versions.ts';
import { LESSONS, ROOT, STAGES } from '../../scripts/stages.ts';
import { text } from '../../scripts/fake-model/replies.ts';
import { startFakeOpenAI } from '../../scripts/fake-model/server.ts';

const REPLY = '你好！我是本机的假模型。';
let passed = 0;
let failed = 0;

function report(ok: boolean, what: string, detail = ''): void {
    console.log(`  ${ok ? '✓' : '✗'} ${what}`);
    if (!ok) console.log(detail.trimEnd().replace(/^/gm, '      '));
    if (ok) passed++;
    else failed++;
}

/** 子进程的环境：不带 NODE_OPTIONS（不许悄悄加载 tsx），PATH 最前面是这个 node，阶段里按名字启动的 node 也是它。 */
function envFor(node: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`, ...extra };
    delete env.NODE_OPTIONS;
    return env;
}

function demos(node: string): void {
    const r = spawnSync(node, ['--test', '--test-reporter=tap', 'test/repo/demo.test.ts'], { cwd: ROOT, encoding: 'utf8', env: envFor(node), timeout: 300_000 });
    const count = (name: string) => r.stdout.match(new RegExp(`^# ${name} (\\d+)`, 'm'))?.[1] ?? '?';
    report(r.status === 0, `演示：${LESSONS.join('、')}，章节里的记录一字不差（test/repo/demo.test.ts：${count('pass')} 个通过，${count('fail')} 个失败）`, r.stdout + r.stderr);
}

async function firstTurn(node: string, stage: string): Promise<void> {
    const fake = await startFakeOpenAI({ replies: [text(REPLY)] });
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-node-smoke-')));
    const cwd = path.join(base, 'project');
    const home = path.join(base, 'home');
    fs.mkdirSync(cwd);
    fs.mkdirSync(home);
    try {
        const env = envFor(node, { HOME: home, NO_COLOR: '1', OPENAI_API_KEY: 'sk-smoke-not-a-real-key', OPENAI_MODEL: 'smoke', OPENAI_BASE_URL: fake.url });
        const child = spawn(node, [path.join(ROOT, stage, 'index.ts')], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => { out += d; });
        child.stderr.on('data', (d) => { err += d; });
        child.stdin.end('你好\n/exit\n');
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        clearTimeout(timer);
        const asked = fake.requests.map((r) => r.rejected ?? r.body.messages.at(-1)?.content);
        const ok = code === 0 && out.includes(REPLY) && out.trimEnd().endsWith('bye') && asked.length === 1 && asked[0] === '你好';
        report(ok, `${stage}：node ${stage}/index.ts 答了第一轮，/exit 后打印 bye`,
            `退出码 ${code}；模型收到 ${JSON.stringify(asked)}\n--- stdout ---\n${out}\n--- stderr ---\n${err}`);
    } finally {
        await fake.close();
        fs.rmSync(base, { recursive: true, force: true });
    }
}

async function main(): Promise<number> {
    const dir = tempNodeDir();
    try {
        const installed = installNodes(dir);
        if ('skipped' in installed) {
            console.log(`跳过 node 直接跑 .ts 的检查：${installed.skipped}`);
            return 0;
        }
        for (const { version, node } of installed.nodes) {
            console.log(`Node ${version}（npm 软件源的 node 包，装在临时目录；不经 tsx）`);
            demos(node);
            for (const stage of STAGES) await firstTurn(node, stage);
        }
        console.log(`${passed} passed, ${failed} failed`);
        return failed ? 1 : 0;
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

process.exitCode = await main();
