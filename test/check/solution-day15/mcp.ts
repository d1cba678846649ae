// 一台 MCP 服务器的连接：子进程的 stdin/stdout 上一行一条 JSON-RPC。
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

type Pending = { resolve: (result: any) => void; reject: (error: Error) => void; timer: NodeJS.Timeout };
export type McpTool = { name: string; description?: string; inputSchema?: any };

export class McpServer {
    tools: McpTool[] = [];
    private child: ChildProcessWithoutNullStreams;
    private nextId = 1;
    private pending = new Map<number, Pending>();
    private buffer = '';
    private dead = false;
    private exited: Promise<void>;
    readonly name: string;

    constructor(name: string, command: string, args: string[] = [], env: Record<string, string> = {}) {
        this.name = name;
        this.child = spawn(command, args, { env: { ...process.env, ...env } });
        this.child.stdout.setEncoding('utf8');
        this.child.stdout.on('data', (chunk: string) => this.onData(chunk));
        this.child.stderr.resume();
        this.child.stdin.on('error', () => {});
        this.exited = new Promise((resolve) => this.child.on('exit', () => resolve()));
        this.child.on('exit', () => this.markDead());
    }

    async connect(): Promise<void> {
        await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'my-agent', version: '0.1.0' } });
        this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        const list = await this.request('tools/list', {});
        this.tools = list.tools ?? [];
    }

    async call(tool: string, args: any): Promise<string> {
        const result = await this.request('tools/call', { name: tool, arguments: args });
        const text = (result.content ?? []).map((c: any) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
        return result.isError ? `工具报错：${text}` : text;
    }

    async stop(): Promise<void> {
        this.child.stdin.end();
        this.child.kill();
        await this.exited;
    }

    private request(method: string, params: any): Promise<any> {
        if (this.dead) return Promise.reject(new Error(`服务器 ${this.name} 已退出`));
        const id = this.nextId++;
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
                this.pending.delete(id);
                reject(new Error(`请求 ${method} 超时（10 秒）`));
            }, 10_000);
            this.pending.set(id, { resolve, reject, timer });
            this.send({ jsonrpc: '2.0', id, method, params });
        });
    }

    private send(msg: any): void {
        this.child.stdin.write(JSON.stringify(msg) + '\n');
    }

    private onData(chunk: string): void {
        this.buffer += chunk;
        let at;
        while ((at = this.buffer.indexOf('\n')) >= 0) {
            const line = this.buffer.slice(0, at).trim();
            this.buffer = this.buffer.slice(at + 1);
            if (line) this.onMessage(JSON.parse(line));
        }
    }

    private onMessage(msg: any): void {
        if (msg.method !== undefined) return;   // 服务器发来的通知和请求：不处理
        const entry = this.pending.get(msg.id);
        if (!entry) return;   // 没有人在等这个 id
        this.pending.delete(msg.id);
        clearTimeout(entry.timer);
        if (msg.error) entry.reject(new Error(msg.error.message));
        else entry.resolve(msg.result);
    }

    private markDead(): void {
        this.dead = true;
        for (const entry of this.pending.values()) {
            clearTimeout(entry.timer);
            entry.reject(new Error(`服务器 ${this.name} 已退出`));
        }
        this.pending.clear();
    }
}
