// 没有 API key 也能看每一章的效果：npm run demo -- day15（npm run demo -- hardened 用 day15 的脚本跑加固版）
// 在本机起一个按脚本回答的 OpenAI 兼容服务（演示脚本，不是真模型），在新建的临时目录里以管道输入运行
// 该阶段真实的入口 dayNN/index.ts，把 stdout 与 stderr 按出现顺序合在一起打印出来。
// 入口和读者一样启动：node 自己会去掉类型（Node 22.18 起）就是 node dayNN/index.ts，Node 20 上经 tsx。
//   npm run demo -- day15            打印演示记录
//   npm run demo -- day15 --readme   把规范化后的记录写进 dayNN/README.md 的两个标记之间
// README 里的记录只由这个命令生成，test/repo/demo.test.ts 检查它们没有过期。
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DemoScript } from './demo-scripts/script.ts';
import { startFakeOpenAI } from './fake-model/server.ts';
import { HARDENED, LESSONS, ROOT } from './stages.ts';

export const MODEL = '演示脚本';
export const HEADER = `演示模式：下面的「模型」是本机按脚本回答的假服务（OPENAI_MODEL=${MODEL}），不联网、不需要 API key。`;
export const beginMarker = (stage: string) => `<!-- 演示：由 npm run demo -- ${stage} 生成 -->`;
export const END_MARKER = '<!-- 演示结束 -->';

// process.features.typescript：node 默认去掉类型时是 'strip'（Node 22.18 起），Node 20 没有这一项
const stripsTypes = Boolean((process.features as { typescript?: string | false }).typescript);

/** 跑 .ts 入口的 node 参数：node 自己能去掉类型就直接跑，否则经 tsx。 */
const tsEntryArgs = (entry: string) => (stripsTypes ? [entry] : ['--import', import.meta.resolve('tsx'), entry]);

/** 跑一遍某个阶段的演示，返回终端上会看到的全部文字（stdout、stderr 按顺序交织）。 */
export async function runDemo(stage: string): Promise<{ text: string; code: number | null; cwd: string; base: string }> {
    const name = stage === HARDENED ? LESSONS.at(-1) : stage;   // 加固版没有自己的章节：演示 day15 那一章
    const script: DemoScript = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'demo-scripts', `${name}.ts`)).href)).default;
    const fake = await startFakeOpenAI({ replies: script.replies });
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-demo-')));
    const cwd = path.join(base, 'project');
    const home = path.join(base, 'home');   // 全局的东西放在这里，不碰读者自己的 HOME
    fs.mkdirSync(cwd);
    fs.mkdirSync(home);
    script.setup?.(cwd, home);
    // 两路输出写进同一个文件描述符：顺序就是进程写出的顺序，与读者在终端里看到的一致
    const logFile = path.join(base, 'transcript.txt');
    const fd = fs.openSync(logFile, 'a');
    try {
        const child = spawn(process.execPath, tsEntryArgs(path.join(ROOT, stage, 'index.ts')), {
            cwd,
            env: {
                PATH: process.env.PATH, HOME: home, NO_COLOR: '1', OPENAI_API_KEY: 'sk-demo-not-a-real-key', OPENAI_MODEL: MODEL, OPENAI_BASE_URL: fake.url,
                ...(script.trace ? { GEEKAGENT_TRACE: script.trace.channels } : {}),
            },
            stdio: ['pipe', fd, fd],
        });
        child.stdin!.on('error', () => {});
        child.stdin!.end(script.input.map((line) => `${line}\n`).join(''));
        const code = await new Promise<number | null>((resolve, reject) => {
            child.on('error', reject);
            child.on('close', resolve);
        });
        const rejected = fake.requests.filter((r) => r.rejected).map((r) => r.rejected);
        if (rejected.length) throw new Error(`演示脚本的假服务拒绝了请求：\n${rejected.join('\n')}`);
        return { text: fs.readFileSync(logFile, 'utf8') + traceExcerpt(script, cwd), code, cwd, base };
    } finally {
        fs.closeSync(fd);
        await fake.close();
    }
}

/** 协议追踪的摘录：trace.log 里匹配的前几行，太长的行截断（完整的在文件里）。 */
function traceExcerpt(script: DemoScript, cwd: string): string {
    if (!script.trace) return '';
    const { channels, show, max } = script.trace;
    const file = path.join(cwd, '.geekagent', 'trace.log');
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => show.test(l)).slice(0, max);
    // 先把路径和开头的时间换掉再截：仓库放在哪、时间有几位，不该影响截在哪里
    const cut = (l: string) => { const s = l.split(cwd).join('<临时目录>').split(ROOT).join('<仓库>').replace(/^\+\d+\.\d+s /, '+<t>s '); return [...s].length > 160 ? [...s].slice(0, 160).join('') + '…' : s; };
    return `\n--- .geekagent/trace.log 的摘录（GEEKAGENT_TRACE=${channels}）---\n${lines.map(cut).join('\n')}\n`;
}

/** 去掉每次运行都不同的部分（临时路径、随机 id、骰子点数、时间），README 里的记录才能逐字比较。 */
export function normalizeTranscript(text: string, cwd: string): string {
    return text
        .split(cwd).join('<临时目录>')
        .split(ROOT).join('<仓库>')
        .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<端口>')   // 演示用的本机假服务每次换一个端口（横幅里「密钥发往」显示它）
        .replace(/^\+\d+\.\d+s /gm, '+<t>s ')
        .replace(/pid \d+/g, 'pid N')
        .replace(/点数：[1-6]/g, '点数：N')
        .replace(/骰子点数是 [1-6]/g, '骰子点数是 N')
        .replace(/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?/g, '<时间>')
        .replace(/\b[0-9a-f]{8}\b/g, '<id>')
        .replace(/\b\d+(\.\d+)? ?(秒|ms|毫秒)/g, 'N $2');
}

/** 把记录放进 README 的两个标记之间；找不到标记时抛错。 */
export function replaceBetweenMarkers(readme: string, stage: string, transcript: string): string {
    const begin = readme.indexOf(beginMarker(stage));
    const end = readme.indexOf(END_MARKER, begin);
    if (begin < 0 || end < 0) throw new Error(`${stage}/README.md 里没有演示标记：${beginMarker(stage)} … ${END_MARKER}`);
    const block = `${beginMarker(stage)}\n\`\`\`text\n${transcript.trimEnd()}\n\`\`\`\n`;
    return readme.slice(0, begin) + block + readme.slice(end);
}

async function main(): Promise<void> {
    const [stage, flag] = process.argv.slice(2);
    if (!(LESSONS.includes(stage) || (stage === HARDENED && flag === undefined)) || (flag !== undefined && flag !== '--readme')) {
        console.error(`用法：npm run demo -- <阶段> [--readme]，例如 npm run demo -- day15（可选：${LESSONS.join(' ')}；${HARDENED} 不带 --readme）`);
        process.exit(2);
    }
    const { text, code, cwd, base } = await runDemo(stage);
    fs.rmSync(base, { recursive: true, force: true });
    if (code !== 0) {
        console.error(`${text}\n演示失败：${stage}/index.ts 以退出码 ${code} 结束`);
        process.exit(1);
    }
    const transcript = `${HEADER}\n${text}`;
    if (flag === '--readme') {
        const file = path.join(ROOT, stage, 'README.md');
        fs.writeFileSync(file, replaceBetweenMarkers(fs.readFileSync(file, 'utf8'), stage, normalizeTranscript(transcript, cwd)));
        console.log(`已写入 ${stage}/README.md 的演示记录`);
    } else {
        process.stdout.write(transcript);
    }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
