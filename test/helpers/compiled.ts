// 测试跑的阶段入口：阶段目录原样转成 JS 后的 index.js。
// 为什么不每次 tsx dayNN/index.ts：tsx 加载器自己启动就要约 0.5 s CPU（2 核机器上量的：node 空跑 0.1 s，
// 加 --import tsx 0.6 s），一千个测试里几百次启动就是几分钟。转一次、直接 node index.js 只剩 node 自己的启动。
// 转法和 tsx 一样只去掉类型（ts-loader.mjs 的 transpile，不做类型检查、不打包），文件一一对应、
// 目录名不变（横幅里的阶段名取自目录名），源码里的 import './x.ts' 改写成 './x.js'（rewriteRelativeImportExtensions），
// 所以 Node 20 也能直接跑；非 .ts 文件（skills/、demo-server.mjs）原样复制。
// 按阶段全部文件的内容做哈希缓存在 node_modules/.cache/ 里：改了源码下次自动重转，多个测试进程同时转也不会互相覆盖。
// 经 tsx 启动的对照在 test/stages/entry.test.ts：每个阶段各跑一次读者敲的 tsx dayNN/index.ts，输出和请求都要相同。
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transpile } from './ts-loader.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'geekagent-test');
const built = new Map<string, string>();

/** 阶段转成 JS 后 index.js 的绝对路径；第一次调用时转（或取缓存）。 */
export function compiledEntry(stage: string): string {
    let entry = built.get(stage);
    if (!entry) {
        entry = path.join(build(path.join(ROOT, stage)), stage, 'index.js');
        built.set(stage, entry);
    }
    return entry;
}

/**
 * 检查的测试里那些 .ts 入口（改坏了一处的阶段副本、几行的小 Agent）也照样转成 JS 再交给检查：检查只管启动入口、看它做什么，
 * 经 tsx 还是直接 node 对检查没有分别，而每次启动省下 tsx 加载器的约 0.3 s CPU。读者自己的文件夹照旧经 tsx（learners.test.ts）。
 */
export function compiledCopy(entry: string): string {
    const dir = path.dirname(entry);
    return path.join(build(dir), path.basename(dir), path.basename(entry).replace(/\.ts$/, '.js'));
}

function listFiles(dir: string, prefix = ''): string[] {
    return fs.readdirSync(dir, { withFileTypes: true })
        .filter((e) => !e.name.startsWith('.'))   // 点文件夹（npm run check 的 .check/）不是源码
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .flatMap((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]));
}

function build(source: string): string {
    const stage = path.basename(source);
    const files = listFiles(source);
    // 本文件和加载器也算进哈希：转法改了，旧的缓存就不再用
    const hash = createHash('sha256').update(fs.readFileSync(fileURLToPath(import.meta.url))).update(fs.readFileSync(fileURLToPath(new URL('./ts-loader.mjs', import.meta.url))));
    for (const name of files) hash.update(`${name}\0`).update(fs.readFileSync(path.join(source, name))).update('\0');
    // 仓库里的文件夹缓存在 node_modules/.cache；临时目录里的副本就转在它旁边，随临时目录一起删掉
    const inRepo = source.startsWith(ROOT + path.sep);
    const target = path.join(inRepo ? CACHE : path.dirname(source), `${stage}-${hash.digest('hex').slice(0, 16)}`);
    if (fs.existsSync(target)) return target;

    // 先写到本进程自己的临时目录，写完一次改名：别的进程要么看不到，要么看到完整的
    const temp = `${target}.tmp-${process.pid}`;
    for (const name of files) {
        const from = path.join(source, name);
        const to = path.join(temp, stage, name.replace(/\.ts$/, '.js'));
        fs.mkdirSync(path.dirname(to), { recursive: true });
        if (!name.endsWith('.ts')) {
            fs.copyFileSync(from, to);
            continue;
        }
        fs.writeFileSync(to, transpile(from, fs.readFileSync(from, 'utf8'), true));
        // 技能的 tools.ts 是运行时按这个名字动态导入的（读者自己写技能也是 .ts）：留一个同名的符号链接指向 .js。
        // node 按真实路径（.js）认格式；用加载钩子也行，但钩子线程让每次启动多花约 0.15 s CPU
        if (name.includes('/')) fs.symlinkSync(path.basename(to), to.replace(/\.js$/, '.ts'));
    }
    // node_modules 下面的 .js 不看仓库的 package.json，要自己声明是 ES 模块
    fs.writeFileSync(path.join(temp, 'package.json'), '{ "type": "module" }\n');
    try {
        fs.renameSync(temp, target);
    } catch {
        // 另一个测试进程先转好了：内容相同，用它的
        fs.rmSync(temp, { recursive: true, force: true });
    }
    if (inRepo) removeStale(stage, target);
    return target;
}

/** 同一阶段旧源码的转换结果：建了一小时以上就删（刚建的可能正被旁边另一轮测试用着）。 */
function removeStale(stage: string, keep: string): void {
    for (const name of fs.readdirSync(CACHE)) {
        const dir = path.join(CACHE, name);
        if (dir !== keep && name.startsWith(`${stage}-`) && Date.now() - (fs.statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 3_600_000) {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    }
}
