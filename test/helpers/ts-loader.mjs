// npm test 用的 TypeScript 加载钩子（由 ts-register.mjs 注册）：测试文件和它们 import 的 .ts 直接跑。
// 和 tsx、Node 22.18 起的 node 做的是同一件事（只去掉类型，不做类型检查；import 写的就是 ./x.ts，不用改说明符）。
// 要它是因为 npm test 也在 Node 20 上跑，那里的 node 还不会去掉类型；不用 tsx 是为了快：npm test 每个测试文件一个进程，
// tsx 每个进程启动要约 0.65 s CPU，这个加载器约 0.35 s（2 核机器上量的：十个测试文件 12.1 对 9.3 CPU 秒）。
// 转好的 JS 按文件路径和内容的哈希缓存在 node_modules/.cache/ 里；npm test 之前 pretest 一次转好全部文件（warm），
// 之后每个测试进程都不用再加载 TypeScript。npm run dev / model 和 Node 20 上的读者仍然用 tsx。
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'geekagent-test', 'ts');
let ts;

/**
 * 一个 .ts 文件的源码转成 JS：只去掉类型，带行内 source map（报错的栈指回 .ts 的行号）。
 * 按路径和内容缓存；测试用的阶段入口（compiled.ts）也经这里转。
 * toJs：源码里的 import './x.ts' 改写成 './x.js'（TypeScript 的 rewriteRelativeImportExtensions）——
 * 转好的文件在磁盘上叫 x.js、由没有加载钩子的 node 直接跑时要这样；经本加载器跑的文件不用改，x.ts 就在那里。
 */
export function transpile(file, source, toJs = false) {
    const key = createHash('sha256').update(file).update('\0').update(source).update(toJs ? '\0toJs' : '').digest('hex').slice(0, 32);
    const cached = path.join(CACHE, `${key}.js`);
    try {
        return fs.readFileSync(cached, 'utf8');
    } catch {
        ts ??= createRequire(import.meta.url)('typescript');
        const js = ts.transpileModule(source, {
            fileName: file,
            compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, inlineSourceMap: true, rewriteRelativeImportExtensions: toJs },
        }).outputText;
        // 先写临时文件再改名：同时跑的测试进程读到的要么没有，要么是完整的
        fs.mkdirSync(CACHE, { recursive: true });
        const temp = `${cached}.${process.pid}`;
        fs.writeFileSync(temp, js);
        fs.renameSync(temp, cached);
        return js;
    }
}

export async function load(url, context, next) {
    if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
    const file = fileURLToPath(url);
    return { format: 'module', source: transpile(file, fs.readFileSync(file, 'utf8')), shortCircuit: true };
}

/** 把仓库里（node_modules 以外）的 .ts 全部转一遍放进缓存：只加载一次 TypeScript，而不是每个测试进程各一次。 */
export function warm() {
    const walk = (dir) => {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
            const full = path.join(dir, entry.name);
            if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(full);
            else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) transpile(full, fs.readFileSync(full, 'utf8'));
        }
    };
    walk(ROOT);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) warm();
