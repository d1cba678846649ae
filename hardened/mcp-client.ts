// Day 15：与一台 MCP 服务器的连接：启动子进程，握手 initialize → notifications/initialized → tools/list，
// 之后每次调用工具是一个 tools/call；服务器退出时 markDead，挂着的请求立刻失败，不干等超时。
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { isObject, jsonText, MAX_JSON_DEPTH, tooDeep, type Json } from './json.ts';
import { RequestTable, RequestTimeout, RpcError } from './jsonrpc.ts';
import type { McpEntry, McpServerConfig } from './mcp-config.ts';
import { LineFramer, LineWriter } from './mcp-framing.ts';
import { spawnServer, stopServer } from './mcp-process.ts';
import { ServerLog, type McpLogLine } from './mcp-log.ts';
import { traceMcp } from './trace.ts';

// tools/list 里的一个工具：名字、说明、参数的 JSON Schema（inputSchema）
export type McpToolInfo = { name: string; title?: string; description?: string; inputSchema?: unknown; annotations?: Json };

export class McpClient {
    readonly name: string;
    status: 'connecting' | 'connected' | 'failed' | 'exited' = 'connecting';
    error = '';                     // 为什么没连上、为什么退出了
    tools: McpToolInfo[] = [];
    private child?: ChildProcessWithoutNullStreams;
    private writer?: LineWriter;
    private table?: RequestTable;
    private dead = '';              // 服务器不在了的原因
    readonly entry: McpEntry;
    private readonly onLog?: (server: string, line: string) => void;

    constructor(entry: McpEntry, onLog?: (server: string, line: string) => void) {
        this.entry = entry;
        this.onLog = onLog;
        this.name = entry.name;
    }

    // 任何一步失败都停掉服务器，原因记在 error
    async connect(): Promise<void> {
        this.status = 'connecting';
        this.error = '';
        this.tools = [];
        try {
            const config = this.entry.config;
            if (!config) throw new Error(this.entry.error);   // 这一条配置写错了
            const table = this.start(config);
            const wait = Math.max(config.timeout, HANDSHAKE_FLOOR_MS);   // 冷启动的 npx 要先下载包，握手至少等 30 秒
            this.checkVersion(await table.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT_INFO }, wait));
            this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
            this.tools = await this.allPages(await table.request('tools/list', {}, wait).catch(noToolsMethod), wait);
            this.status = 'connected';
        } catch (e) {
            this.status = 'failed';
            this.error = (e as Error).message;
            await this.stop();
        }
    }

    callTool(tool: string, args: Json, signal?: AbortSignal): Promise<unknown> {   // 用服务器上的原名，返回 tools/call 的 result
        const timeout = this.entry.config?.timeout;
        if (this.status !== 'connected' || !this.table || !timeout) return Promise.reject(new Error(`MCP 服务器 ${this.name} 未在运行：${this.error || '正在连接'}`));
        return this.table.request('tools/call', { name: tool, arguments: args }, timeout, signal).catch(this.explainTimeout);
    }

    async stop(): Promise<void> {
        if (!this.child) return;
        this.markDead('已停止');
        await stopServer(this.name, this.child);
    }

    private start(config: McpServerConfig): RequestTable {
        const child = spawnServer(this.name, config);
        this.child = child;
        this.writer = new LineWriter(child.stdin, MAX_STDIN_BACKLOG, () => this.disconnect());   // 对方不读：积压太多就断开（分隔线以下）
        this.dead = '';
        this.table = new RequestTable((msg) => this.send(withProgressToken(msg)), (id, method, reason) => this.cancel(id, method, reason));
        const out = new LineFramer((line) => this.onLine(line), (n) => this.log(`丢弃了一行超长输出（${n} 字节）`), MAX_LINE_BYTES);
        child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
        this.watch(child, config, out);   // stderr 记进日志；启动失败、进程退出 → markDead
        return this.table;
    }

    // 挂着的请求立刻失败（带上 stderr 里说明原因的几行），之后的请求也直接失败
    private markDead(reason: string): void {
        if (this.dead) return;
        this.dead = reason;
        this.table?.close(new Error(this.withStderr(reason)));
        if (this.status !== 'connected') return;
        this.status = 'exited';
        this.error = reason;
    }

    private send(msg: Json): void {
        if (this.dead || !this.writer) return;
        const line = JSON.stringify(msg);   // 结果里没有裸换行，所以一条消息永远只占一行
        traceMcp(this.name, '→', line);
        this.writer.write(line);
    }

    // 响应按 id 交给请求表；服务器发来的请求、通知，以及批量和认不出的消息见 otherMessage
    private onLine(line: string): void {
        traceMcp(this.name, '←', line);
        const msg = this.parse(line);
        if (!isObject(msg) || !this.table?.settle(msg)) this.otherMessage(msg);
    }

    // —— 加固：版本检查、分页、服务器的请求与通知、取消、退出的时机、日志 ——
    // 服务器遇到不认识的版本会回它自己的最新版而不是报错，所以必须由客户端检查
    private checkVersion(init: unknown): void {
        const result = isObject(init) ? init : {};
        if (!SUPPORTED_VERSIONS.includes(result.protocolVersion as string)) {
            const version = typeof result.protocolVersion === 'string' ? result.protocolVersion : jsonText(result.protocolVersion);
            throw new Error(`不支持的协议版本 ${version}（支持：${SUPPORTED_VERSIONS.join(', ')}）`);
        }
    }

    // 工具列表可能分页：收下第一页，跟着 nextCursor 翻页；游标重复或超过 100 页就停下，保留已经拿到的。没有名字的工具不要；
    // 定义嵌套太深的也不要（它的输入模式每次请求都要逐层清理、序列化），记一句原因，同一台服务器的其他工具照常
    private async allPages(first: unknown, timeoutMs: number): Promise<McpToolInfo[]> {
        const tools: McpToolInfo[] = [];
        const seen = new Set<string>();
        for (let page = 1, body = isObject(first) ? first : {}; ; page++) {
            for (const t of Array.isArray(body.tools) ? body.tools : []) {
                if (!isObject(t) || typeof t.name !== 'string' || t.name === '') continue;
                if (tooDeep(t)) this.log(`工具 ${t.name} 的定义嵌套超过 ${MAX_JSON_DEPTH} 层，没有交给模型`);
                else tools.push(t as unknown as McpToolInfo);
            }
            const next = body.nextCursor;
            if (typeof next !== 'string' || next === '') return tools;
            if (seen.has(next) || page >= MAX_PAGES) {
                this.log(`tools/list 的分页游标重复或超过 ${MAX_PAGES} 页，已停止翻页`);
                return tools;
            }
            seen.add(next);
            const result = await this.table!.request('tools/list', { cursor: next }, timeoutMs);
            body = isObject(result) ? result : {};
        }
    }

    // 超时或用户取消后告诉服务器别做了；initialize 绝不能取消（协议如此规定；握手超时后整个服务器会被停掉）
    private cancel(id: number, method: string, reason: string): void {
        if (method !== 'initialize') this.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } });
    }

    // 从别的客户端抄来的配置通常没有 timeout：超时的报错说清在哪里调、现在是多少
    private readonly explainTimeout = (e: unknown): never => {
        if (!(e instanceof RequestTimeout)) throw e;
        throw new Error(`${e.message}；可在 .geekagent/mcp.json 里调大服务器 ${this.name} 的 timeout（当前 ${this.entry.config?.timeout} 毫秒）`);
    };

    // 不是 JSON 的行（服务器把日志写到了 stdout）记一条日志，返回 undefined（JSON.parse 不会得到 undefined）。
    // 记下原样的这一行：认不出的消息在日志里引用它，不重新序列化（那会递归，见 json.ts 的 tooDeep）
    private rawLine = '';

    private parse(line: string): unknown {
        this.rawLine = line;
        try {
            return JSON.parse(line);
        } catch {
            this.log(`忽略非 JSON 输出：${line}`);
            return undefined;
        }
    }

    // 2025-03-26 的批量消息逐条处理（批量里再套批量不认）；认不出的，日志里记一次原样的这一行（太长的由 log 截短）
    private otherMessage(msg: unknown): void {
        if (msg === undefined) return;   // 不是 JSON 的行，已经记过日志
        const items = Array.isArray(msg) ? msg.filter((item) => !isObject(item) || !this.table?.settle(item)) : [msg];
        const unknown = items.filter((item) => !this.dispatch(item)).length;
        if (unknown > 0) this.log(`忽略无法识别的消息：${this.rawLine}`);
    }

    // 按形状分类，不看键的顺序（真实服务器会把 id 写在最后）；id 可能是 0 或字符串，不能当布尔值判断。返回认不认得
    private dispatch(msg: unknown): boolean {
        if (!isObject(msg)) return false;
        const hasId = typeof msg.id === 'number' || typeof msg.id === 'string';
        if (typeof msg.method === 'string' && hasId) this.answer(msg.id, msg.method);
        else if (typeof msg.method === 'string' && !('id' in msg)) this.onNotification(msg.method, isObject(msg.params) ? msg.params : {});
        else if (hasId && ('result' in msg || 'error' in msg)) this.log(`忽略没有对应请求的响应（id ${JSON.stringify(msg.id)}）`);
        else return false;
        return true;
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
            if (typeof params.progressToken === 'number') this.table?.restart(params.progressToken);   // 令牌就是请求 id
        } else if (method === 'notifications/message') {
            const data = typeof params.data === 'string' ? params.data : jsonText(params.data);
            this.log(`[${typeof params.level === 'string' ? params.level : 'info'}] ${data}`, true);
        }
        // cancelled 和其他通知：本阶段不处理
    }

    // stderr 必须一直读走：没人读的管道写满后服务器会卡住；每行记进日志和协议追踪。
    // 服务器的死亡只在一个地方宣布：stdout 关闭、读循环结束时——这样它临死前写的响应都已读完。进程退出了而孙进程还占着管道，
    // stdout 不会自己结束：退出后最多再读 100 毫秒就关掉它。stdout 先关闭的，最多等 200 毫秒的退出码，好说清原因
    private watch(child: ChildProcessWithoutNullStreams, config: McpServerConfig, out: LineFramer): void {
        this.journal.hold();   // 在 stdout 上开口之前写的行先不回显，见 mcp-log.ts
        this.diedAtStart = false;
        child.stdout.once('data', () => child === this.child && this.journal.release());
        const err = new LineFramer((line) => this.stderrLine(line), (n) => this.log(`丢弃了一行超长 stderr（${n} 字节）`), MAX_STDERR_LINE_BYTES);
        child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
        child.stderr.on('end', () => err.flush());
        child.on('error', (e: NodeJS.ErrnoException) => this.died(child, e.code === 'ENOENT' ? `找不到命令：${config.command}` : `启动服务器失败：${e.message}`));
        child.stdin.on('error', () => {});   // 服务器死后写入会 EPIPE；死亡由读循环结束处理
        child.on('exit', () => {
            traceMcp(this.name, '·', exitReason(child));
            setTimeout(() => child.stdout.destroy(), 100).unref();
        });
        child.stdout.on('close', async () => {
            if (!this.dead) out.flush();   // 断开、停止之后没读完的半行不算
            if (child.exitCode === null && child.signalCode === null) await Promise.race([once(child, 'exit').catch(() => {}), sleep(200)]);
            this.died(child, child.exitCode === null && child.signalCode === null ? '服务器关闭了标准输出' : exitReason(child));
        });
    }

    // 早先停掉的进程（重连之前的那个）的事件不算；停止时的退出也不算：stop 已经 markDead
    private died(child: ChildProcessWithoutNullStreams, reason: string): void {
        if (child !== this.child || this.dead) return;
        this.diedAtStart = this.status === 'connecting';
        this.log(reason);
        this.markDead(reason);
    }

    // stderr 的一行原样记进协议追踪（启动失败时完整的调用栈只在这里），再记进日志
    private stderrLine(line: string): void {
        traceMcp(this.name, '·', `stderr：${line}`);
        this.log(line, true);
    }

    // 服务器不读 stdin 却不停地发 ping（每个都要回答）：回答积压在 LineWriter 里，超过上限就断开：丢掉积压，挂着的请求立刻失败
    // （markDead），进程照常停掉；之后它的 ping 不再回答，它的输出也不再读（还在涌来的行不必再解析，白白占内存）
    private disconnect(): void {
        const reason = `MCP 服务器 ${this.name} 不读输入，已断开（发给它的消息积压超过 ${MAX_STDIN_BACKLOG / 1024 / 1024} MiB；/mcp reconnect ${this.name} 可以重连）`;
        this.log(reason);
        this.markDead(reason);
        this.child?.stdin.destroy();
        this.child?.stdout.removeAllListeners('data').pause();
        void this.stop();
    }

    // 最近 50 行日志和行模式下的回显，见 mcp-log.ts
    private readonly journal = new ServerLog((line) => this.onLog?.(this.name, line));
    private diedAtStart = false;   // 还在连接时服务器自己退出了（或根本没启动起来）：失败原因后面加一句提示

    get logs(): McpLogLine[] {
        return this.journal.lines;
    }

    get recentLog(): string[] {
        return this.journal.recent();
    }

    log(text: string, fromServer = false): void {
        this.journal.add(fromServer ? text : `客户端：${text}`, fromServer);
    }

    // 失败原因带上 stderr 里说明原因的几行；启动时就死了的再加一句查哪里（相对路径从服务器的工作目录算起）
    private withStderr(reason: string): string {
        const text = this.journal.withStderr(reason);
        if (!this.diedAtStart) return text;
        const cwd = this.entry.config?.cwd;
        const from = cwd ? `服务器的工作目录 ${cwd}` : `启动 Agent 的文件夹 ${process.cwd()}`;
        return `${text}。提示：检查 .geekagent/mcp.json 里 ${this.name} 的 command 和 args，相对路径从${from} 算起`;
    }
}

const CLIENT_INFO = { name: 'geekagent', version: '0.1.0' };
const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const HANDSHAKE_FLOOR_MS = 30_000;
const MAX_LINE_BYTES = 64 * 1024 * 1024;        // 真实服务器读 6 MiB 文件会回一行 12.6 MB
const MAX_STDERR_LINE_BYTES = 1024 * 1024;
// 发给一台服务器、它还没读走的字节的上限。我们发的最大的一条是模型给的工具参数（通常几十 KB，模型一次也写不出几 MB），读得慢的
// 正常服务器积不到这么多；不读的服务器最多让 Agent 多占这么多（LineWriter 攒成整块，不按条数多占），再加上解析涌来的行的开销
// （十来 MiB 的新生代）。8 MiB 时两样加起来离 32 MiB 太近
const MAX_STDIN_BACKLOG = 4 * 1024 * 1024;
const MAX_PAGES = 100;

function exitReason(child: ChildProcessWithoutNullStreams): string {
    return child.signalCode ? `服务器进程已退出（信号 ${child.signalCode}）` : `服务器进程已退出（退出码 ${child.exitCode}）`;
}

// tools/list 回 -32601（没有这个方法）：服务器没有工具，不是失败
function noToolsMethod(e: unknown): Json {
    if (e instanceof RpcError && e.code === -32601) return {};
    throw e;
}

// 只给 tools/call 带进度令牌（只有它会跑得久），令牌就用请求 id：服务器每报一次进度就重新计时（onNotification），
// 所以报进度的慢工具可以跑得比 timeout 久，一声不吭的照样在 timeout 后超时
export function withProgressToken(msg: Json): Json {
    if (msg.method === 'tools/call') (msg.params as Json)._meta = { progressToken: msg.id };
    return msg;
}
