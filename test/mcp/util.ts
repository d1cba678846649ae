// MCP 测试的公共工具：路径、临时目录、残留进程检查
import { mkdtempSync, readdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpClient } from '../../hardened/mcp-client.ts';
import type { McpManager, Registry } from '../../hardened/mcp-setup.ts';
import type { Tool } from '../../hardened/tools.ts';

export const SERVERS = fileURLToPath(new URL('./servers/', import.meta.url));
export const server = (file: string): string => join(SERVERS, file);

// 测试进程结束时一并删除
const made: string[] = [];
process.on('exit', () => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

export function tempDir(prefix = 'geekagent-mcp-'): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
}

// 读服务器通过 MCP_TEST_LOG 记下的行
export function readRecords(file: string): Record<string, any>[] {
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

// 命令行包含 needle、且环境里带着本次测试标记的进程（标记让并行的测试文件互不干扰）
export function leftovers(needle: string, mark: string): string[] {
    const found: string[] = [];
    for (const pid of readdirSync('/proc')) {
        if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
        try {
            const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
            if (!cmd.includes(needle)) continue;
            const env = readFileSync(`/proc/${pid}/environ`, 'utf8');
            if (env.includes(`GEEKAGENT_TEST_MARK=${mark}`)) found.push(`${pid}: ${cmd}`);
        } catch {
            // 进程刚好结束
        }
    }
    return found;
}

export async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!check()) {
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 25));
    }
    return true;
}

// 假的注册表：McpManager 把工具注册到这里（agent 里是 tools.ts 那一份）。builtins：先占着名字的「内置工具」
export function fakeRegistry(builtins: string[] = []): Registry & { tools: Map<string, Tool> } {
    const tools = new Map<string, Tool>();
    return {
        tools,
        names: () => [...builtins, ...tools.keys()],
        register(tool) {
            if (tools.has(tool.name) || builtins.includes(tool.name)) throw new Error(`工具 ${tool.name} 已经注册过了`);
            tools.set(tool.name, tool);
        },
        unregister: (name) => void tools.delete(name),
    };
}

// 按名字找管理器里的一台服务器
export const serverOf = (manager: McpManager, name: string): McpClient => manager.servers.find((s) => s.name === name)!;
