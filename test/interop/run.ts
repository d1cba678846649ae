// 与官方 MCP 参考服务器的互通测试：把 server-everything、server-filesystem、
// server-memory 装进一个临时目录（npm install --prefix，不碰 package.json），再用本仓库手写的客户端驱动它们。
// 需要能访问 npm 软件源；连不上时打印"跳过"并以 0 退出。任何检查失败 → 退出码 1。
// 运行：npx tsx test/interop/run.ts
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMcpConfig } from '../../hardened/mcp-config.ts';
import { McpManager, mcpStatusText } from '../../hardened/mcp-setup.ts';
import { callMcpTool } from '../../hardened/mcp-tools.ts';
import { fakeRegistry, serverOf } from '../mcp/util.ts';

const VERSION = '2026.8.31';   // 固定版本：工具数量等观察结果都来自这个版本
const SERVERS = { everything: 'server-everything', fs: 'server-filesystem', memory: 'server-memory' };
const EXPECTED_TOOLS: Record<string, number> = { everything: 13, fs: 14, memory: 9 };

const failures: string[] = [];
function check(ok: boolean, what: string, detail = ''): void {
    const oneLine = detail.replace(/\s*\n\s*/g, ' | ');
    console.log(`${ok ? '  ✓' : '  ✗'} ${what}${oneLine ? `：${oneLine}` : ''}`);
    if (!ok) failures.push(what);
}

function npm(args: string[], timeoutMs: number) {
    return spawnSync('npm', args, { encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, npm_config_update_notifier: 'false' } });
}

// 直接用 node 运行包的 bin 文件（不经过 npx），启动快，命令行里也带着临时目录，便于检查残留进程
function binOf(dir: string, pkg: string): string {
    const root = join(dir, 'node_modules', '@modelcontextprotocol', pkg);
    const meta = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: string | Record<string, string> };
    return join(root, typeof meta.bin === 'string' ? meta.bin : Object.values(meta.bin)[0]);
}

function leftovers(needle: string): string[] {
    const found: string[] = [];
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
        try {
            const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
            if (cmd.includes(needle) && Number(pid) !== process.pid) found.push(`${pid} ${cmd}`);
        } catch {
            // 进程刚好结束
        }
    }
    return found;
}

async function main(): Promise<number> {
    const ping = npm(['ping', '--loglevel=error'], 30_000);
    if (ping.status !== 0) {
        console.log(`跳过互通测试：npm 连不上软件源（${(ping.stderr || ping.error?.message || '').trim().split('\n')[0]}）`);
        return 0;
    }
    const dir = mkdtempSync(join(tmpdir(), 'geekagent-interop-'));
    try {
        console.log(`安装参考服务器 ${VERSION} 到 ${dir} …`);
        const pkgs = Object.values(SERVERS).map((p) => `@modelcontextprotocol/${p}@${VERSION}`);
        const t0 = Date.now();
        const install = npm(['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', ...pkgs], 300_000);
        if (install.status !== 0) {
            console.error(`npm install 失败：\n${install.stderr}`);
            return 1;
        }
        console.log(`  安装用时 ${((Date.now() - t0) / 1000).toFixed(1)} s`);

        const files = join(dir, 'files');
        mkdirSync(files);
        // 3000 行 × 100 字节 = 300 KB
        writeFileSync(join(files, 'big.txt'), Array.from({ length: 3000 }, (_, i) => `line ${String(i).padStart(4, '0')} `.padEnd(99, 'x') + '\n').join(''));
        writeFileSync(join(files, 'small.txt'), 'hello\n');
        // 密钥样的变量不该传给服务器：server-everything 的 get-env 会把整个环境返回
        process.env.GEEKAGENT_INTEROP_API_KEY = 'sk-interop-should-not-leak';
        process.env.GEEKAGENT_INTEROP_DIR = dir;
        const node = process.execPath;
        const config = {
            mcpServers: {
                everything: { command: node, args: [binOf(dir, SERVERS.everything), 'stdio'], timeout: 60_000 },
                fs: { command: node, args: [binOf(dir, SERVERS.fs), '${GEEKAGENT_INTEROP_DIR}/files'], timeout: 60_000 },
                memory: { command: node, args: [binOf(dir, SERVERS.memory)], env: { MEMORY_FILE_PATH: '${GEEKAGENT_INTEROP_DIR}/memory.jsonl' }, timeout: 60_000 },
            },
        };
        writeFileSync(join(dir, 'mcp.json'), JSON.stringify(config, null, 2));

        const registry = fakeRegistry();
        const manager = new McpManager(loadMcpConfig(join(dir, 'mcp.json')), registry);
        const t1 = Date.now();
        await manager.connectAll();
        console.log(`连接三个服务器用时 ${Date.now() - t1} ms`);
        try {
            const tools = [...registry.tools.values()];
            for (const s of manager.servers) {
                check(s.status === 'connected', `${s.name} 已连接`, s.status === 'connected'
                    ? `${s.tools.length} 个工具` : s.error);
                check(s.tools.length === EXPECTED_TOOLS[s.name], `${s.name} 工具数 = ${EXPECTED_TOOLS[s.name]}`, String(s.tools.length));
            }
            check(tools.every((t) => /^[a-zA-Z0-9_-]{1,64}$/.test(t.name)), '所有工具名合法', `${tools.length} 个`);
            check(tools.every((t) => t.parameters.type === 'object' && typeof t.parameters.properties === 'object' && !('$schema' in t.parameters)),
                '所有参数模式都是带 properties 的 object');

            const call = (server: string, tool: string, args: Record<string, unknown>) => callMcpTool(serverOf(manager, server), tool, args);
            const echo = await call('everything', 'echo', { message: '你好 MCP' });
            check(echo.includes('你好 MCP'), 'everything echo', echo);
            const names = serverOf(manager, 'everything').tools.map((t) => t.name);
            if (names.includes('get-tiny-image')) {
                const image = await call('everything', 'get-tiny-image', {});
                check(/\[图片 image\/png，\d+ 字节\]/.test(image), 'everything get-tiny-image 占位', image.replaceAll('\n', ' | ').slice(0, 160));
            }
            if (names.includes('get-env')) {
                const env = await call('everything', 'get-env', {});
                check(!env.includes('sk-interop-should-not-leak') && env.includes('GEEKAGENT_INTEROP_DIR'), 'get-env 看不到密钥样变量');
            }

            const listing = await call('fs', 'list_directory', { path: files });
            check(/big\.txt/.test(listing) && /small\.txt/.test(listing), 'filesystem list_directory', listing.replaceAll('\n', ' | '));
            const readTool = serverOf(manager, 'fs').tools.some((t) => t.name === 'read_text_file') ? 'read_text_file' : 'read_file';
            const content = await call('fs', readTool, { path: join(files, 'big.txt') });
            check(content.startsWith('line 0000 ') && /\n…\(已截断，共 \d+ 个字符\)$/.test(content),
                `filesystem ${readTool} 300 KB 文件被截到 20 000 字符`, `${content.length} 个字符，结尾「${content.slice(-24)}」`);
            try {
                await call('fs', readTool, { path: '/etc/passwd' });
                check(false, 'filesystem 拒绝目录外的路径');
            } catch (e) {
                check(true, 'filesystem 拒绝目录外的路径（isError → 异常）', String((e as Error).message).slice(0, 100));
            }

            await call('memory', 'create_entities', { entities: [{ name: 'GeekAgent', entityType: 'project', observations: ['手写的 MCP 客户端'] }] });
            const graph = await call('memory', 'read_graph', {});
            check(graph.includes('GeekAgent') && graph.includes('手写的 MCP 客户端'), 'memory create_entities → read_graph', graph.slice(0, 160));
            // /mcp 的输出（省略工具名行），可以看到服务器的 stderr 与客户端记录
            console.log(mcpStatusText(manager).split('\n').filter((l) => !l.startsWith('  mcp_')).join('\n'));
        } finally {
            const t2 = Date.now();
            await manager.stopAll();
            console.log(`停止用时 ${Date.now() - t2} ms`);
        }
        const left = leftovers(dir);
        check(left.length === 0, '停止后没有残留进程', left.join('; '));
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
    console.log(failures.length === 0 ? '互通测试全部通过' : `互通测试失败 ${failures.length} 项：${failures.join('、')}`);
    return failures.length === 0 ? 0 : 1;
}

process.exitCode = await main().catch((e: unknown) => {
    console.error(`互通测试出错：${e instanceof Error ? e.stack : String(e)}`);
    return 1;
});
