// Day 15：与一台 MCP 服务器的连接。握手（检查协议版本）→ 分页的 tools/list → tools/call；
// 回答服务器发来的请求；服务器死掉时让挂着的请求立刻失败，并带上它 stderr 里说明原因的几行。
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { isObject, LineFramer, RequestTable, RequestTimeout, RpcError, type Json } from './jsonrpc.js';
import type { McpEntry, McpServerConfig } from './mcp-config.js';
import { forgetIfGone, spawnServer, stopServer } from './mcp-process.js';
import { traceMcp } from './trace.js';

const PROTOCOL_VERSION = '2025-06-18';
const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const HANDSHAKE_FLOOR_MS = 30_000;              // 冷启动的 npx 要下载包，握手至少给 30 秒
const MAX_LINE_BYTES = 64 * 1024 * 1024;        // 真实服务器读 6 MiB 文件会回一行 12.6 MB
const MAX_STDERR_LINE_BYTES = 1024 * 1024;
const LOG_LINES = 50;
const LOG_LINE_CHARS = 1000;
const MAX_PAGES = 100;

export const cut = (text: string, max: number): string => (text.length > max ? text.slice(0, max) + '…' : text);

// 服务器临死前的 stderr 里挑出说明原因的几行。Node 的报错以调用栈、{ code…, requireStack… }、Node.js v20 收尾，
// 最后几行恰恰没用：先取像错误的行（Cannot find module…，调用栈除外）；都不像，就去掉噪声行后取最后三行
const STACK = /^\s+at |^node:internal\//;
const NOISE = /^\s*$|^\s*\^+\s*$|^\s*[{}[\]],?$|^\s+[\w$]+: .*,?$|^\s+throw |^Node\.js v\d/;
const ERRORISH = /error|cannot|not found|exception|denied|失败|错误|找不到/i;
export function meaningfulStderr(lines: string[]): string[] {
    const errors = lines.filter((line) => !STACK.test(line) && ERRORISH.test(line));
    if (errors.length > 0) return errors.slice(0, 3);
    return lines.filter((line) => !STACK.test(line) && !NOISE.test(line)).slice(-3);
}

export type McpStatus = 'connecting' | 'connected' | 'failed' | 'exited';

export interface McpToolInfo {
    name: string;
    title?: string;
    description?: string;
    inputSchema?: unknown;
    annotations?: Json;
}

export interface McpLogLine {
    text: string;
    fromServer: boolean;    // false：客户端自己的记录（丢弃的行、翻页保护等）
}

export class McpClient {
    readonly name: string;
    status: McpStatus = 'connecting';
    error = '';
    tools: McpToolInfo[] = [];
    serverInfo: Json = {};
    capabilities: Json = {};
    instructions = '';
    private readonly config?: McpServerConfig;
    private readonly configError: string;
    private readonly ring: McpLogLine[] = [];   // 最近 50 行日志；满了以后从 head 处覆盖最旧的一行
    private head = 0;
    private child?: ChildProcessWithoutNullStreams;
    private table?: RequestTable;
    private dead = '';

    // onLog：纯文本前端用它把 stderr 暗色回显成 [mcp:NAME] line
    constructor(entry: McpEntry, private readonly onLog?: (server: string, line: string) => void) {
        this.name = entry.name;
        this.config = entry.config;
        this.configError = entry.error ?? '';
    }

    get logs(): McpLogLine[] {
        return [...this.ring.slice(this.head), ...this.ring.slice(0, this.head)];
    }

    log(text: string, fromServer = false): void {
        const line = cut(fromServer ? text : `客户端：${text}`, LOG_LINE_CHARS);
        if (this.ring.length < LOG_LINES) {
            this.ring.push({ text: line, fromServer });
        } else {
            this.ring[this.head] = { text: line, fromServer };
            this.head = (this.head + 1) % LOG_LINES;
        }
        this.onLog?.(this.name, line);
    }

    // 启动 → initialize → 检查版本 → initialized → tools/list（全部分页）；任何一步失败都停掉服务器
    async connect(): Promise<void> {
        this.status = 'connecting';
        this.error = '';
        this.tools = [];
        try {
            if (!this.config) throw new Error(this.configError);
            this.start(this.config);
            const wait = Math.max(this.config.timeout, HANDSHAKE_FLOOR_MS);
            const init = await this.request('initialize', {
                protocolVersion: PROTOCOL_VERSION,
                capabilities: {},
                clientInfo: { name: 'geekagent', version: '0.1.0' },
            }, wait);
            const result = isObject(init) ? init : {};
            // 服务器遇到不认识的版本会回它自己的最新版而不是报错，所以必须由客户端检查
            if (!SUPPORTED_VERSIONS.includes(result.protocolVersion as string)) {
                throw new Error(`不支持的协议版本 ${String(result.protocolVersion)}（支持：${SUPPORTED_VERSIONS.join(', ')}）`);
            }
            this.serverInfo = isObject(result.serverInfo) ? result.serverInfo : {};
            this.capabilities = isObject(result.capabilities) ? result.capabilities : {};
            this.instructions = typeof result.instructions === 'string' ? result.instructions : '';
            this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
            this.tools = await this.listTools(wait);
            this.status = 'connected';
        } catch (e) {
            this.status = 'failed';
            this.error = (e as Error).message;
            await this.stop();
        }
    }

    async callTool(tool: string, args: Json, signal?: AbortSignal): Promise<unknown> {
        if (this.status !== 'connected' || !this.config) {
            throw new Error(`MCP 服务器 ${this.name} 未在运行：${this.error || '正在连接'}`);
        }
        const { timeout } = this.config;
        try {
            return await this.request('tools/call', { name: tool, arguments: args }, timeout, signal);
        } catch (e) {
            // 从别的客户端抄来的配置通常没有 timeout，得告诉读者在哪里调、现在是多少
            if (e instanceof RequestTimeout) {
                throw new Error(`${e.message}；可在 .geekagent/mcp.json 里调大服务器 ${this.name} 的 timeout（当前 ${timeout} 毫秒）`);
            }
            throw e;
        }
    }

    async stop(): Promise<void> {
        const child = this.child;
        if (!child) return;
        this.markDead(child, '已停止');
        traceMcp(this.name, '·', '停止：关闭 stdin，2 秒不退出发 SIGTERM，再 2 秒发 SIGKILL');
        await stopServer(child);
    }

    private start(config: McpServerConfig): void {
        const child = spawnServer(config);
        traceMcp(this.name, '·', `启动 ${[config.command, ...config.args].join(' ')}（pid ${child.pid}）`);
        this.child = child;
        this.dead = '';
        this.table = new RequestTable((msg) => this.send(msg));

        child.on('error', (e: NodeJS.ErrnoException) => {
            this.markDead(child, e.code === 'ENOENT' ? `找不到命令：${config.command}` : `启动服务器失败：${e.message}`);
        });
        child.stdin.on('error', () => {});   // 服务器死后写入会 EPIPE；死亡由 exit 事件处理
        // 进程退出时 stdout 里可能还有它临死前写的响应：等 stdout 读完再宣布死亡
        // （孙进程可能一直占着管道，所以最多等 100 毫秒）
        let exitReason = '';
        let stdoutDone = false;
        child.on('exit', (code, signal) => {
            exitReason = signal ? `服务器进程已退出（信号 ${signal}）` : `服务器进程已退出（退出码 ${code}）`;
            traceMcp(this.name, '·', exitReason);
            if (stdoutDone) this.markDead(child, exitReason);
            else setTimeout(() => this.markDead(child, exitReason), 100);
        });
        const out = new LineFramer((line) => this.onLine(line), (n) => this.log(`丢弃了一行超长输出（${n} 字节）`), MAX_LINE_BYTES);
        child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
        child.stdout.on('end', () => {
            stdoutDone = true;
            out.flush();
            if (exitReason) this.markDead(child, exitReason);
            else setTimeout(() => this.markDead(child, exitReason || '服务器关闭了标准输出'), 200);
        });
        // stderr 必须一直读走：没人读的管道写满后服务器会卡住
        const err = new LineFramer((line) => this.log(line, true), (n) => this.log(`丢弃了一行超长 stderr（${n} 字节）`), MAX_STDERR_LINE_BYTES);
        child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
        child.stderr.on('end', () => err.flush());
    }

    private markDead(child: ChildProcessWithoutNullStreams, reason: string): void {
        if (child !== this.child || this.dead) return;
        this.dead = reason;
        if (reason !== '已停止') this.log(reason);
        const tail = meaningfulStderr(this.logs.filter((l) => l.fromServer).map((l) => l.text)).join(' | ');
        this.table?.rejectAll(new Error(tail ? `${reason}；stderr：${tail}` : reason));
        if (this.status === 'connected') {
            this.status = 'exited';
            this.error = reason;
        }
        forgetIfGone(child);
    }

    private request(method: string, params: Json, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
        if (this.dead || !this.table) return Promise.reject(new Error(`MCP 服务器 ${this.name} 未在运行：${this.dead}`));
        return this.table.request(method, params, timeoutMs, signal);
    }

    // 只写 JSON.stringify 的结果加换行：它不会产生裸换行，所以一条消息永远只占一行
    private send(msg: Json): void {
        const stdin = this.child?.stdin;
        if (this.dead || !stdin?.writable) return;
        const line = JSON.stringify(msg);
        traceMcp(this.name, '→', line);
        stdin.write(line + '\n');
    }

    private onLine(line: string): void {
        traceMcp(this.name, '←', line);
        let msg: unknown;
        try {
            msg = JSON.parse(line);
        } catch {
            this.log(`忽略非 JSON 输出：${cut(line, 80)}`);
            return;
        }
        if (Array.isArray(msg)) msg.forEach((item) => this.dispatch(item));   // 2025-03-26 的批量消息
        else this.dispatch(msg);
    }

    // 按形状分类，不看键的顺序：真实服务器会把 id 写在最后。id 可能是 0 或字符串，不能当布尔值判断
    private dispatch(msg: unknown): void {
        if (!isObject(msg)) return this.log(`忽略无法识别的消息：${cut(JSON.stringify(msg), 80)}`);
        const hasId = typeof msg.id === 'number' || typeof msg.id === 'string';
        if (typeof msg.method === 'string') {
            if (hasId) return this.answer(msg.id, msg.method);
            if (!('id' in msg)) return this.onNotification(msg.method, isObject(msg.params) ? msg.params : {});
        } else if (hasId && ('result' in msg || 'error' in msg)) {
            if (!this.table?.settle(msg)) this.log(`忽略没有对应请求的响应（id ${JSON.stringify(msg.id)}）`);
            return;
        }
        this.log(`忽略无法识别的消息：${cut(JSON.stringify(msg), 80)}`);
    }

    // 服务器发来的请求必须回答：不回答的话，有的服务器会一直挂着这个请求、关掉 stdin 也不退出
    private answer(id: unknown, method: string): void {
        if (method === 'ping') this.send({ jsonrpc: '2.0', id, result: {} });
        else this.send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
    }

    private onNotification(method: string, params: Json): void {
        if (method === 'notifications/tools/list_changed') {
            this.log(`工具列表已变化；重启 agent（或 /mcp reconnect ${this.name}）后才会刷新`);
        } else if (method === 'notifications/progress') {
            this.table?.progress(params.progressToken);
        } else if (method === 'notifications/message') {
            const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
            this.log(`[${String(params.level ?? 'info')}] ${data}`, true);
        }
        // cancelled 和其他通知：本阶段不处理
    }

    // 跟着 nextCursor 翻页；游标重复或超过 100 页就停下，保留已经拿到的
    private async listTools(timeoutMs: number): Promise<McpToolInfo[]> {
        const tools: McpToolInfo[] = [];
        const seen = new Set<string>();
        let params: Json = {};
        for (let page = 1; ; page++) {
            let result: unknown;
            try {
                result = await this.request('tools/list', params, timeoutMs);
            } catch (e) {
                if (e instanceof RpcError && e.code === -32601) return tools;   // 服务器没有工具
                throw e;
            }
            const body = isObject(result) ? result : {};
            for (const t of Array.isArray(body.tools) ? body.tools : []) {
                if (isObject(t) && typeof t.name === 'string' && t.name !== '') tools.push(t as unknown as McpToolInfo);
            }
            const next = body.nextCursor;
            if (typeof next !== 'string' || next === '') return tools;
            if (seen.has(next) || page >= MAX_PAGES) {
                this.log(`tools/list 的分页游标重复或超过 ${MAX_PAGES} 页，已停止翻页`);
                return tools;
            }
            seen.add(next);
            params = { cursor: next };
        }
    }
}
