// Day 15：和一台 MCP 服务器的连接。服务器是 Agent 启动的子进程：往它的 stdin 写、从它的 stdout 读，一行一条 JSON-RPC 消息。
// 每个请求带一个新的 id，记在请求表里等同一个 id 的响应；每个请求有自己的 10 秒计时器；服务器一退出，表里所有请求立刻失败。
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import readline from 'node:readline';

const REQUEST_TIMEOUT_MS = 10_000;   // 一个请求最多等这么久：服务器不回答时，这一轮不能永远挂着
const STOP_WAIT_MS = 1000;           // 关了 stdin 之后等它自己退出这么久，再发 SIGTERM

// mcp.json 里一台服务器怎样启动；tools/list 里一个工具的样子（只用到这几个字段）
export type McpServerConfig = { command: string; args: string[]; env: Record<string, string> };
export type McpToolInfo = { name: string; description?: string; inputSchema?: Record<string, unknown> };
type Pending = { resolve: (result: any) => void; reject: (error: Error) => void; timer: NodeJS.Timeout };

export class McpServer {
    readonly name: string;           // mcp.json 里的名字，工具名 mcp_<name>_<工具> 的中段
    tools: McpToolInfo[] = [];
    private nextId = 1;
    private pending = new Map<number, Pending>();   // 请求表：id → 等着这个响应的请求
    private dead = '';                               // 服务器不在了的原因；非空之后每个请求都直接失败
    private stderrTail = '';                         // stderr 的最后一段：服务器死了，原因多半写在这里
    private child: ChildProcessWithoutNullStreams;
    private closed: Promise<unknown>;

    constructor(name: string, config: McpServerConfig) {
        this.name = name;
        // 服务器继承 Agent 的环境，再加上 mcp.json 的 env。你的模型密钥不给：别人写的程序用不着它；真要给，在 env 里写出来
        const inherited = { ...process.env };
        delete inherited.OPENAI_API_KEY;
        this.child = spawn(config.command, config.args, { env: { ...inherited, ...config.env } });
        // 死因就写在启动旁边：启动不了（命令不存在）、中途退出，挂着的请求都立刻失败，不必干等 10 秒。
        // 用 close 不用 exit：close 在 stdout 读完之后才来，服务器临死前写出的最后一个响应还能送到
        this.closed = new Promise((resolve) => this.child.on('close', resolve));
        this.child.on('close', (code, signal) => this.markDead(`已退出（${signal ?? `退出码 ${code}`}）`));
        this.child.on('error', (e) => this.markDead(`启动失败：${e.message}`));
        this.child.stdin.on('error', () => {});   // 服务器死后再写会 EPIPE：原因 close 已经报告，不让它带走整个 Agent
        // 一行一条消息：readline 替我们切行，一个字的几个字节被拆在两次读取之间也能接上
        readline.createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on('line', (line) => this.onLine(line));
        // stderr 要一直读走：没人读的管道写满之后，服务器会卡在写日志上
        this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
            this.stderrTail = (this.stderrTail + chunk).slice(-2000);
        });
    }

    /** 握手：initialize 的响应到了才发 initialized 通知，再问工具清单。任何一步失败都抛出，调用方停掉这台服务器。 */
    async connect(): Promise<void> {
        const client = { name: 'geekagent', version: '0.1.0' };
        await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: client });
        this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });   // 通知没有 id，也就没有响应
        const list = await this.request('tools/list', {});
        this.tools = Array.isArray(list?.tools) ? list.tools.filter((t: McpToolInfo) => typeof t?.name === 'string') : [];
    }

    /** 用服务器上的原名调用一个工具，结果里的文字拼起来交回；工具自己报错（isError）时抛出。signal：Ctrl+C 时不再等它。 */
    async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string> {
        const result = await this.request('tools/call', { name: tool, arguments: args }, signal);
        const blocks: any[] = Array.isArray(result?.content) ? result.content : [];
        // 文字块原样拼起来；图片、音频这类模型看不了，只说一声这里有一个
        const text = blocks.map((b) => (b?.type === 'text' ? String(b.text) : `[${b?.type} 内容]`)).join('\n');
        if (result?.isError) throw new Error(`MCP 工具报错：${text}`);
        return text || '（无内容）';
    }

    /** 停下：先关 stdin（规范里正常结束的方式），等一会儿还在就 SIGTERM（有的服务器关了 stdin 也不走）。 */
    async stop(): Promise<void> {
        this.child.stdin.end();
        const term = setTimeout(() => this.child.kill(), STOP_WAIT_MS);
        // 连 SIGTERM 也不理的，再等一会儿就不管了：Agent 总要退出得了
        await Promise.race([this.closed, new Promise((resolve) => setTimeout(resolve, 2 * STOP_WAIT_MS))]);
        clearTimeout(term);
    }

    /** 服务器为什么不能用了（还能用时是空串）。Node 的报错以调用栈和「Node.js v20…」收尾：说明原因的多半是最后一个带 error 的行。 */
    get failure(): string {
        const lines = this.stderrTail.split('\n').map((l) => l.trim()).filter(Boolean);
        const why = [...lines].reverse().find((l) => /error/i.test(l)) ?? lines.at(-1);
        return this.dead && why ? `${this.dead}；stderr：${why.slice(0, 200)}` : this.dead;
    }

    /** 发一个请求，等同一个 id 的响应。从 1 递增、永不复用的 id：迟到的响应不会错配给后来的请求。 */
    private request(method: string, params: unknown, signal?: AbortSignal): Promise<any> {
        if (this.dead) return Promise.reject(new Error(`MCP 服务器 ${this.name} ${this.failure}`));
        const id = this.nextId++;
        return new Promise((resolve, reject) => {
            const timeout = () => this.settle(id, new Error(`${method} 超时：${REQUEST_TIMEOUT_MS / 1000} 秒没有响应`));
            this.pending.set(id, { resolve, reject, timer: setTimeout(timeout, REQUEST_TIMEOUT_MS) });
            signal?.addEventListener('abort', () => this.settle(id, new Error('已取消')), { once: true });
            this.send({ jsonrpc: '2.0', id, method, params });
        });
    }

    /** 一个请求有了结果（响应、错误、超时、取消、服务器退出）：从表里拿掉、停掉计时器。之后同一个 id 的响应找不到它，直接丢掉。 */
    private settle(id: number, error: Error | null, result?: unknown): void {
        const waiting = this.pending.get(id);
        if (!waiting) return;
        this.pending.delete(id);
        clearTimeout(waiting.timer);
        if (error) waiting.reject(error);
        else waiting.resolve(result);
    }

    private send(message: object): void {
        this.child.stdin.write(JSON.stringify(message) + '\n');   // 一条消息一行：JSON.stringify 不会输出换行
    }

    /** 收到一行。只有不带 method、带着我们的 id 的才是某个请求的响应：按 id 找回等它的请求，不看到达的先后。 */
    private onLine(line: string): void {
        let message;
        try {
            message = JSON.parse(line);
        } catch {
            return;   // 不是 JSON（服务器把日志写到了 stdout）：丢掉
        }
        // 服务器发来的请求（ping）和通知（进度、日志）带着 method：教学版不处理。id 对不上的，settle 里找不到，丢掉
        if (!message || typeof message !== 'object' || 'method' in message) return;
        const { code, message: text } = message.error ?? {};
        this.settle(message.id, message.error ? new Error(`MCP 错误 ${code}：${text}`) : null, message.result);
    }

    private markDead(reason: string): void {
        this.dead ||= reason;
        for (const id of this.pending.keys()) this.settle(id, new Error(`MCP 服务器 ${this.name} ${this.failure}`));
    }
}
