// 装两个能直接跑 .ts 的 Node：22.18.0（node 默认去掉类型的第一个版本，本仓库承诺的下限）和当前的 Node 24。
// 从 npm 软件源的 node 包装进一个临时目录（npm install --prefix … --no-save：不碰 package.json 和本仓库的 node_modules），
// CI（npm run test:node，test/node/run.ts）和启动基准（test/bench/startup.bench.ts）共用这一份。
// 连不上软件源时不装，返回一行说明为什么跳过；装到一半失败是真的失败，照样报出来。
//   npx tsx scripts/node-versions.ts [目录]    装好后每行打印「版本<Tab>node 的路径」（不给目录就建一个临时目录）
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** 要装的版本：npm 的版本范围，24 取软件源里最新的 24.x。 */
export const NODE_VERSIONS = ['22.18.0', '24'];

export interface InstalledNode {
    version: string;    // node --version 报的，例如 v24.21.0
    node: string;       // 可执行文件的绝对路径
}

export type Installed = { nodes: InstalledNode[] } | { skipped: string };

function npm(args: string[], timeoutMs: number) {
    return spawnSync('npm', args, { encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, npm_config_update_notifier: 'false' } });
}

/** 每个版本装进 dir 下自己的子目录；软件源连不上时 { skipped }。 */
export function installNodes(dir: string, versions: string[] = NODE_VERSIONS): Installed {
    const ping = npm(['ping', '--loglevel=error'], 30_000);
    if (ping.status !== 0) return { skipped: `npm 连不上软件源（${(ping.stderr || ping.error?.message || '').trim().split('\n')[0]}）` };
    const nodes = versions.map((spec) => {
        const prefix = path.join(dir, `node-${spec}`);
        fs.mkdirSync(prefix, { recursive: true });
        const r = npm(['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `node@${spec}`], 300_000);
        const node = path.join(prefix, 'node_modules', '.bin', 'node');
        if (r.status !== 0 || !fs.existsSync(node)) throw new Error(`安装 node@${spec} 失败：\n${r.stderr || r.error?.message}`);
        return { version: spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim(), node };
    });
    return { nodes };
}

/** 新建一个临时目录来装；用完由调用方删（fs.rmSync(dir, { recursive: true, force: true })）。 */
export const tempNodeDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-node-'));

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
    const r = installNodes(process.argv[2] ?? tempNodeDir());
    if ('skipped' in r) console.log(`跳过：${r.skipped}`);
    else for (const n of r.nodes) console.log(`${n.version}\t${n.node}`);
}
