// Day 15：手写的 stdio MCP 客户端（不用 SDK）。只依赖 node: 内置模块，可以单独阅读和测试。
// 自下而上分层：行切分（LineSplitter）→ 请求表（RequestTable）→ 单个服务器的生命周期
// （McpServer）→ 管理器（McpManager，并发连接与停止）→ 交给模型的工具（buildMcpTools）。
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as sleep } from 'node:timers/promises';

export const PROTOCOL_VERSION = '2025-06-18';
export const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
export const DEFAULT_TIMEOUT_MS = 10_000;
const HANDSHAKE_FLOOR_MS = 30_000;       // 冷启动的 npx 要下载包，握手至少给 30 秒
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
const LOG_LINES = 50;
const LOG_LINE_CHARS = 1000;
const MAX_PAGES = 100;
export const RESULT_MAX_CHARS = 20_000;  // MCP 工具没有分页，上限比 read 的 2000 宽得多
const STOP_WAIT_MS = 2000;
const PROMPT_ARGS_CHARS = 300;
const TOOL_WARN_COUNT = 128;             // OpenAI 单次请求最多 128 个工具

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const cut = (text: string, max: number): string => (text.length > max ? text.slice(0, max) + '…' : text);

// ───────────────────────── 1. 行切分 ─────────────────────────
// 一条消息以字节 \n 结束。未结束的行按块保存，行结束时才解码，每个字节只经手常数次，总耗时与输入成正比；
// 先按字节切行再解码 UTF-8，所以被拆在两次读取之间的多字节字符也不会坏。
export class LineSplitter {
    private parts: Buffer[] = [];   // 当前这一行已经收到的块
    private size = 0;               // 当前这一行的字节数（丢弃时也继续累计，用于日志）
    private dropping = false;

    constructor(
        private readonly onLine: (line: string) => void,
        private readonly onDrop: (bytes: number) => void = () => {},
        private readonly maxLine = MAX_LINE_BYTES,
    ) {}

    push(chunk: Buffer): void {
        let start = 0;
        for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
            this.add(chunk.subarray(start, nl));
            this.endLine();
            start = nl + 1;
        }
        if (start < chunk.length) this.add(chunk.subarray(start));
    }

    // 流结束时，最后一行即使没有换行符也当作完整的一行
    flush(): void {
        if (this.size > 0) this.endLine();
    }

    private add(piece: Buffer): void {
        this.size += piece.length;
        if (this.dropping || piece.length === 0) return;
        this.parts.push(piece);
        // 超过上限就不再保存，内存保持有界；之后的字节一直丢到下一个换行
        if (this.size > this.maxLine) {
            this.dropping = true;
            this.parts = [];
        }
    }

    private endLine(): void {
        const { parts, size, dropping } = this;
        this.parts = [];
        this.size = 0;
        this.dropping = false;
        if (dropping) return this.onDrop(size);
        if (parts.length === 0) return;
        const last = parts[parts.length - 1];
        if (last[last.length - 1] === 0x0d) parts[parts.length - 1] = last.subarray(0, last.length - 1);
        // 跨块的行不先拼成一个大 Buffer（那样整行要多分配、多拷贝一次），而是用流式解码器逐块解码：
        // 被拆开的多字节字符由解码器接上，结果与整行一次解码相同
        let line = '';
        if (parts.length === 1) {
            line = parts[0].toString('utf8');
        } else {
            const decoder = new StringDecoder('utf8');
            for (const part of parts) line += decoder.write(part);
            line += decoder.end();
        }
        if (line !== '') this.onLine(line);
    }
}

// ───────────────────────── 2. 请求表 ─────────────────────────
// JSON-RPC 的错误响应。code 要保留：tools/list 的 -32601 表示"没有工具"而不是失败
export class RpcError extends Error {
    constructor(readonly code: number, readonly rpcMessage: string) {
        super(`MCP 错误 ${code}：${rpcMessage}`);
    }
}

interface Pending {
    method: string;
    resolve(result: unknown): void;
    reject(error: Error): void;
    timer: NodeJS.Timeout;
}

// id 从 1 递增、永不复用；超时、取消后才到的响应找不到记录，被丢掉
export class RequestTable {
    private nextId = 1;
    private readonly pending = new Map<number, Pending>();

    constructor(private readonly send: (msg: Json) => void) {}

    get size(): number {
        return this.pending.size;
    }

    request(method: string, params: Json, timeoutMs: number): Promise<unknown> {
        const id = this.nextId++;
        return new Promise((resolvePromise, reject) => {
            const timer = setTimeout(() => {
                this.pending.delete(id);
                reject(new Error(`请求 ${method} 超时（${timeoutMs / 1000} 秒内没有响应）`));
                // initialize 绝不能取消（规范要求）；握手超时后整个服务器会被停掉
                if (method !== 'initialize') {
                    this.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'timeout' } });
                }
            }, timeoutMs);
            this.pending.set(id, { method, resolve: resolvePromise, reject, timer });
            this.send({ jsonrpc: '2.0', id, method, params });
        });
    }

    // 返回 false：没有对应的请求（未知 id、已超时），由调用方记一条日志
    settle(msg: Json): boolean {
        const entry = typeof msg.id === 'number' ? this.pending.get(msg.id) : undefined;
        if (!entry) return false;
        this.pending.delete(msg.id as number);
        clearTimeout(entry.timer);
        if ('error' in msg) {
            const err = isObject(msg.error) ? msg.error : {};
            entry.reject(new RpcError(Number(err.code ?? 0), String(err.message ?? '')));
        } else {
            entry.resolve(msg.result);
        }
        return true;
    }

    rejectAll(error: Error): void {
        for (const entry of this.pending.values()) {
            clearTimeout(entry.timer);
            entry.reject(error);
        }
        this.pending.clear();
    }
}

// ───────────────────────── 3. 配置 ─────────────────────────
export interface McpServerConfig {
    command: string;
    args: string[];
    env: Record<string, string>;
    cwd?: string;            // 已解析成绝对路径
    timeout: number;
}

// 一个条目坏了只影响它自己：config 为空时 error 说明原因
export interface McpEntry {
    name: string;
    config?: McpServerConfig;
    error?: string;
}

// ${NAME} 与 ${NAME:-默认值}；不递归，不带花括号的 $NAME 原样保留
export function expandVars(text: string, env: NodeJS.ProcessEnv = process.env): string {
    return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_all, name: string, fallback?: string) => {
        const value = env[name];
        if (fallback !== undefined) return value ? value : fallback;
        if (value === undefined) throw new Error(`环境变量 ${name} 未设置`);
        return value;
    });
}

function parseEntry(name: string, raw: unknown): McpServerConfig {
    const invalid = (detail: string) => new Error(`配置无效：${detail}`);
    if (name === '') throw invalid('服务器名不能为空');
    if (!isObject(raw)) throw invalid('条目必须是对象');
    if ((raw.type !== undefined && raw.type !== 'stdio') || (raw.url !== undefined && raw.command === undefined)) {
        throw invalid('只支持 stdio 服务器');
    }
    const { command, args = [], env = {}, cwd, timeout = DEFAULT_TIMEOUT_MS } = raw;
    if (typeof command !== 'string' || command === '') throw invalid('缺少 command');
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw invalid('args 必须是字符串数组');
    if (!isObject(env) || !Object.values(env).every((v) => typeof v === 'string')) throw invalid('env 必须是字符串值的对象');
    if (cwd !== undefined && typeof cwd !== 'string') throw invalid('cwd 必须是字符串');
    if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0) throw invalid('timeout 必须是正整数（毫秒）');
    return {
        command: expandVars(command),
        args: (args as string[]).map((a) => expandVars(a)),
        env: Object.fromEntries(Object.entries(env as Record<string, string>).map(([k, v]) => [k, expandVars(v)])),
        cwd: cwd === undefined ? undefined : resolve(expandVars(cwd)),
        timeout,
    };
}

// 文件不存在 → 没有服务器；整个文件坏了 → 抛错（调用方以退出码 1 结束）
export function loadMcpConfig(file: string): McpEntry[] {
    let data: unknown;
    try {
        data = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw new Error(`读取 MCP 配置失败：${errorText(e)}`);
    }
    const servers = isObject(data) ? data.mcpServers : undefined;
    if (!isObject(servers)) throw new Error('读取 MCP 配置失败：缺少 mcpServers 对象');
    return Object.entries(servers).map(([name, raw]) => {
        try {
            return { name, config: parseEntry(name, raw) };
        } catch (e) {
            return { name, error: errorText(e) };
        }
    });
}

// 服务器继承 agent 的环境，但去掉名字像密钥的变量：模型 API Key 不该流到第三方程序里
function inheritedEnv(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
        if (value !== undefined && !/KEY|TOKEN|SECRET|PASSWORD/i.test(name)) env[name] = value;
    }
    return env;
}

// ───────────────────────── 4. 进程组 ─────────────────────────
// detached:true 让服务器自成一个进程组（pgid = pid），信号发给整个组，npx、sh -c 的孙进程也跑不掉
const liveGroups = new Set<number>();
let exitHookInstalled = false;
const isWindows = process.platform === 'win32';

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
    try {
        process.kill(isWindows ? pgid : -pgid, signal);   // Windows 只能尽力结束子进程本身
        return true;
    } catch (e) {
        return (e as NodeJS.ErrnoException).code === 'EPERM';   // ESRCH：组里已经没有进程
    }
}

async function waitGroupGone(pgid: number, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (signalGroup(pgid, 0)) {
        if (Date.now() >= deadline) return false;
        await sleep(20);
    }
    return true;
}

// 最后的保险：agent 崩溃或直接 process.exit 时，还活着的组一律 SIGKILL；第二次 Ctrl+C 也调用它
export function forceKillAll(): void {
    for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
}

function trackGroup(pgid: number): void {
    liveGroups.add(pgid);
    if (!exitHookInstalled) {
        exitHookInstalled = true;
        process.on('exit', forceKillAll);
    }
}

// ───────────────────────── 5. 单个服务器 ─────────────────────────
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

export interface McpManagerOptions {
    onLog?(server: string, line: string): void;    // 纯文本前端用它把 stderr 暗色回显成 [mcp:NAME] line
    handshakeFloorMs?: number;                    // 只给测试用：缩短握手的 30 秒下限
}

export class McpServer {
    status: McpStatus = 'connecting';
    error = '';
    tools: McpToolInfo[] = [];
    exposed: { name: string; original: string }[] = [];   // buildMcpTools 填写：最终名 → 原名
    skipped: string[] = [];
    serverInfo: Json = {};
    capabilities: Json = {};
    instructions = '';
    readonly logs: McpLogLine[] = [];
    private child?: ChildProcessWithoutNullStreams;
    private table?: RequestTable;
    private dead = '';

    constructor(readonly name: string, readonly config: McpServerConfig | undefined, private readonly configError: string,
        private readonly options: McpManagerOptions) {}

    get pid(): number | undefined {
        return this.child?.pid;
    }

    log(text: string, fromServer = false): void {
        const line = cut(fromServer ? text : `客户端：${text}`, LOG_LINE_CHARS);
        this.logs.push({ text: line, fromServer });
        if (this.logs.length > LOG_LINES) this.logs.shift();
        this.options.onLog?.(this.name, line);
    }

    // M5.1：启动 → initialize → 检查版本 → initialized → tools/list（全部分页）
    async connect(): Promise<void> {
        this.status = 'connecting';
        this.error = '';
        this.tools = [];
        try {
            if (!this.config) throw new Error(this.configError);
            this.start(this.config);
            const wait = Math.max(this.config.timeout, this.options.handshakeFloorMs ?? HANDSHAKE_FLOOR_MS);
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
            this.error = errorText(e);
            await this.stop();
        }
    }

    async callTool(tool: string, args: Json): Promise<unknown> {
        if (this.status !== 'connected' || !this.config) {
            throw new Error(`MCP 服务器 ${this.name} 未在运行：${this.error || '正在连接'}`);
        }
        return this.request('tools/call', { name: tool, arguments: args }, this.config.timeout);
    }

    // M5.9：关 stdin → 等 2 秒 → SIGTERM → 等 2 秒 → SIGKILL，每一步都针对整个进程组
    async stop(): Promise<void> {
        const child = this.child;
        if (!child) return;
        this.markDead(child, '已停止');
        try {
            child.stdin.end();
        } catch {
            // 管道可能已经断了，无所谓
        }
        const pgid = child.pid;
        if (pgid !== undefined && !(await waitGroupGone(pgid, STOP_WAIT_MS))) {
            signalGroup(pgid, 'SIGTERM');
            if (!(await waitGroupGone(pgid, STOP_WAIT_MS))) {
                signalGroup(pgid, 'SIGKILL');
                await waitGroupGone(pgid, 500);
            }
        }
        if (pgid !== undefined) liveGroups.delete(pgid);
        child.stdout.destroy();
        child.stderr.destroy();
        child.stdin.destroy();
    }

    private start(config: McpServerConfig): void {
        const cwd = config.cwd ?? process.cwd();
        // 先检查 cwd：否则缺失的目录也会表现为 ENOENT，被误报成"找不到命令"
        if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`找不到工作目录：${cwd}`);
        let child: ChildProcessWithoutNullStreams;
        try {
            child = spawn(config.command, config.args, {
                cwd, env: { ...inheritedEnv(), ...config.env }, stdio: 'pipe', detached: true, windowsHide: true,
            });
        } catch (e) {
            throw new Error(`启动服务器失败：${errorText(e)}`);
        }
        this.child = child;
        this.dead = '';
        this.table = new RequestTable((msg) => this.send(msg));
        if (child.pid !== undefined) trackGroup(child.pid);

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
            if (stdoutDone) this.markDead(child, exitReason);
            else setTimeout(() => this.markDead(child, exitReason), 100);
        });
        const out = new LineSplitter((line) => this.onLine(line), (n) => this.log(`丢弃了一行超长输出（${n} 字节）`));
        child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
        child.stdout.on('end', () => {
            stdoutDone = true;
            out.flush();
            if (exitReason) this.markDead(child, exitReason);
            else setTimeout(() => this.markDead(child, exitReason || '服务器关闭了标准输出'), 200);
        });
        // stderr 必须一直读走：没人读的管道写满后服务器会卡住
        const err = new LineSplitter((line) => this.log(line, true), (n) => this.log(`丢弃了一行超长 stderr（${n} 字节）`), 1024 * 1024);
        child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
        child.stderr.on('end', () => err.flush());
    }

    private markDead(child: ChildProcessWithoutNullStreams, reason: string): void {
        if (child !== this.child || this.dead) return;
        this.dead = reason;
        if (reason !== '已停止') this.log(reason);
        const tail = this.logs.filter((l) => l.fromServer).slice(-3).map((l) => l.text).join(' | ');
        this.table?.rejectAll(new Error(tail ? `${reason}；stderr 最后几行：${tail}` : reason));
        if (this.status === 'connected') {
            this.status = 'exited';
            this.error = reason;
        }
        if (child.pid !== undefined && !signalGroup(child.pid, 0)) liveGroups.delete(child.pid);
    }

    private request(method: string, params: Json, timeoutMs: number): Promise<unknown> {
        if (this.dead || !this.table) return Promise.reject(new Error(`MCP 服务器 ${this.name} 未在运行：${this.dead}`));
        return this.table.request(method, params, timeoutMs);
    }

    // 只写 JSON.stringify 的结果加换行：它不会产生裸换行，所以一条消息永远只占一行
    private send(msg: Json): void {
        const stdin = this.child?.stdin;
        if (!this.dead && stdin?.writable) stdin.write(JSON.stringify(msg) + '\n');
    }

    private onLine(line: string): void {
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
        } else if (method === 'notifications/message') {
            const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
            this.log(`[${String(params.level ?? 'info')}] ${data}`, true);
        }
        // progress、cancelled 和其他通知：本阶段不处理
    }

    // M5.3：跟着 nextCursor 翻页；游标重复或超过 100 页就停下，保留已经拿到的
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

// ───────────────────────── 6. 管理器 ─────────────────────────
export class McpManager {
    readonly servers: McpServer[];

    constructor(entries: McpEntry[], options: McpManagerOptions = {}) {
        this.servers = entries.map((e) => new McpServer(e.name, e.config, e.error ?? '', options));
    }

    // 所有服务器同时连接：三个各要 1 秒握手的服务器，总共也只等 1 秒左右
    async connectAll(): Promise<void> {
        await Promise.all(this.servers.map((s) => s.connect()));
    }

    get(name: string): McpServer | undefined {
        return this.servers.find((s) => s.name === name);
    }

    // 调用方先注销旧工具（server.exposed 里的名字），之后用 buildMcpTools(manager, deps, name) 重新注册
    async reconnect(name: string): Promise<McpServer> {
        const server = this.get(name);
        if (!server) throw new Error(`没有名为 ${name} 的 MCP 服务器`);
        await server.stop();
        server.exposed = [];
        server.skipped = [];
        await server.connect();
        return server;
    }

    async stopAll(): Promise<void> {
        await Promise.all(this.servers.map((s) => s.stop()));
    }

    // 返回转换后的文本；isError 的结果变成异常，由 execTool 包成"工具执行失败：…"
    async callTool(serverName: string, tool: string, args: Json): Promise<string> {
        const server = this.get(serverName);
        if (!server) throw new Error(`MCP 服务器 ${serverName} 未在运行：未配置`);
        const { text, isError } = convertResult(await server.callTool(tool, args));
        if (isError) throw new Error(text);
        return text;
    }
}

// ───────────────────────── 7. 名字、模式与结果 ─────────────────────────
// OpenAI 要求 ^[a-zA-Z0-9_-]{1,64}$ 且不重名；过长或重名时用 55 个字符 + '_' + 8 位哈希
export function mcpToolName(server: string, tool: string, taken: (name: string) => boolean = () => false): string | undefined {
    const raw = `mcp_${server}_${tool}`.replace(/[^A-Za-z0-9_-]/gu, '_');
    if (raw.length <= 64 && !taken(raw)) return raw;
    const hash = createHash('sha1').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
    const short = `${raw.slice(0, 55)}_${hash}`;
    return taken(short) ? undefined : short;
}

// 复制一份再改，不动服务器的对象；根必须是带 properties 的 object，否则 OpenAI 拒绝整个请求
export function normalizeSchema(schema: unknown, note: (text: string) => void = () => {}): Json {
    if (!isObject(schema)) return { type: 'object', properties: {} };
    const { $schema: _ignored, ...out } = schema;
    if (out.type === undefined || (Array.isArray(out.type) && out.type.includes('object'))) out.type = 'object';
    if (out.type !== 'object') {
        note('不可用的输入模式');
        return { type: 'object', properties: {} };
    }
    const properties: Json = {};
    for (const [key, value] of Object.entries(isObject(out.properties) ? out.properties : {})) {
        if (typeof value === 'boolean') properties[key] = {};
        else if (isObject(value)) properties[key] = value;
    }
    out.properties = properties;
    const required = Array.isArray(out.required)
        ? out.required.filter((r): r is string => typeof r === 'string' && Object.hasOwn(properties, r))
        : [];
    if (required.length > 0) out.required = required;
    else delete out.required;
    return out;
}

function base64Bytes(data: unknown): number {
    return typeof data === 'string' ? Buffer.byteLength(data, 'base64') : 0;
}

// 非文本内容只给占位说明：模型看不了图片，但应该知道这里有一张图、多大
function blockText(block: unknown): string {
    if (!isObject(block)) return '[不支持的内容：?]';
    const mime = (m: unknown) => (typeof m === 'string' && m !== '' ? ` ${m}` : '');
    switch (block.type) {
        case 'text':
            return typeof block.text === 'string' ? block.text : '';
        case 'image':
            return `[图片${mime(block.mimeType)}，${base64Bytes(block.data)} 字节]`;
        case 'audio':
            return `[音频${mime(block.mimeType)}，${base64Bytes(block.data)} 字节]`;
        case 'resource_link':
            return `[资源链接 ${String(block.name ?? '')} ${String(block.uri ?? '')}${mime(block.mimeType)}]`;
        case 'resource': {
            const res = isObject(block.resource) ? block.resource : {};
            if (typeof res.text === 'string') return `[资源 ${String(res.uri ?? '')}]\n${res.text}`;
            return `[资源 ${String(res.uri ?? '')}${mime(res.mimeType)}，${base64Bytes(res.blob)} 字节]`;
        }
        default:
            return `[不支持的内容：${String(block.type)}]`;
    }
}

export function capText(text: string, max = RESULT_MAX_CHARS): string {
    return text.length <= max ? text : `${text.slice(0, max)}\n…(已截断，共 ${text.length} 个字符)`;
}

// M7：文本块原样，其他块用占位；没有文本块时才用 structuredContent（有文本时它通常只是重复）
export function convertResult(result: unknown): { text: string; isError: boolean } {
    const body = isObject(result) ? result : {};
    const blocks: unknown[] = Array.isArray(body.content) ? body.content : [];
    const parts = blocks.map(blockText);
    const hasText = blocks.some((b) => isObject(b) && b.type === 'text');
    if (!hasText && body.structuredContent !== undefined) parts.push(JSON.stringify(body.structuredContent));
    const isError = body.isError === true;
    let text = parts.join('\n');
    if (text === '') text = isError ? 'MCP 工具返回了错误' : '（无内容）';
    return { text: capText(text), isError };
}

// ───────────────────────── 8. 交给 agent 的工具 ─────────────────────────
// 与工具注册表的 Tool 结构相同；这里重新声明，保持本文件不依赖其他 agent 文件
export interface Tool {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
    run(args: Record<string, unknown>): string | Promise<string>;
    authorizes?: boolean;
}

export interface McpToolDeps {
    authorize(tool: string, prompt: string): Promise<boolean>;
    redact(text: string): string;
    ensureToolPolicy(tool: string, policy: 'ask'): void;
    isTaken?(name: string): boolean;      // 可选：内置工具、技能工具已经占用的名字
}

// 服务器配置顺序、服务器内的列表顺序决定命名，所以结果是确定的。only：只为重连的那台服务器生成
export function buildMcpTools(manager: McpManager, deps: McpToolDeps, only?: string): Tool[] {
    const others = new Set<string>();
    for (const s of manager.servers) if (only !== undefined && s.name !== only) s.exposed.forEach((e) => others.add(e.name));
    const used = new Set<string>();
    const taken = (n: string) => used.has(n) || others.has(n) || (deps.isTaken?.(n) ?? false);
    const tools: Tool[] = [];
    for (const server of manager.servers) {
        if (only !== undefined && server.name !== only) continue;
        server.exposed = [];
        server.skipped = [];
        if (server.status !== 'connected') continue;
        for (const info of server.tools) {
            const name = mcpToolName(server.name, info.name, taken);
            if (!name) {
                server.skipped.push(info.name);
                server.log(`工具 ${info.name} 的名字与已有工具冲突，已跳过`);
                continue;
            }
            used.add(name);
            server.exposed.push({ name, original: info.name });
            deps.ensureToolPolicy(name, 'ask');
            tools.push(makeTool(manager, server, info, name, deps));
        }
    }
    return tools;
}

function makeTool(manager: McpManager, server: McpServer, info: McpToolInfo, name: string, deps: McpToolDeps): Tool {
    const hints = isObject(info.annotations) ? info.annotations : {};
    const title = typeof hints.title === 'string' ? hints.title : info.title;
    return {
        name,
        description: `[MCP:${server.name}] ${info.description || info.title || info.name}`,
        parameters: normalizeSchema(info.inputSchema, (text) => server.log(`${info.name}：${text}`)),
        authorizes: true,
        async run(args) {
            // 标注只是服务器自己的说法，仅供用户参考，从不改变权限策略
            const lines = [`即将调用 MCP 工具：${name}（来自服务器 ${server.name}）`];
            if (hints.readOnlyHint === true) lines.push('服务器声明：只读');
            if (hints.destructiveHint === true) lines.push('服务器声明：破坏性');
            if (title) lines.push(`标题：${title}`);
            // 先脱敏再截断：截断在密钥中间会让脱敏认不出来
            lines.push(`参数：${cut(deps.redact(JSON.stringify(args)), PROMPT_ARGS_CHARS)}`, '确认执行？');
            if (!(await deps.authorize(name, deps.redact(lines.join('\n'))))) return '调用已取消';
            return manager.callTool(server.name, info.name, args);
        },
    };
}

// ───────────────────────── 9. 给用户看的文字 ─────────────────────────
const toolCount = (s: McpServer) => (s.exposed.length > 0 || s.skipped.length > 0 ? s.exposed.length : s.tools.length);

// /mcp 命令的输出；dim 由前端传入（本文件不依赖颜色模块）
export function mcpStatusText(manager: McpManager, dim: (text: string) => string = (t) => t): string {
    if (manager.servers.length === 0) return '（没有已连接的 MCP 服务器；请在 .geekagent/mcp.json 中声明后重启）';
    const out: string[] = [];
    for (const s of manager.servers) {
        if (s.status === 'connected') {
            out.push(`${s.name}（${toolCount(s)} 个工具）`);
            const names = s.exposed.length > 0 || s.skipped.length > 0
                ? s.exposed : s.tools.map((t) => ({ name: mcpToolName(s.name, t.name) ?? t.name, original: t.name }));
            for (const e of names) {
                const renamed = e.name !== `mcp_${s.name}_${e.original}`;
                out.push(`  ${e.name}${renamed ? ` ← ${e.original}` : ''}`);
            }
            for (const k of s.skipped) out.push(`  （已跳过 ${k}：名字冲突）`);
        } else if (s.status === 'connecting') {
            out.push(`${s.name}（连接中…）`);
        } else {
            out.push(`× ${s.name}：${s.error}`);
        }
        for (const line of s.logs.slice(-5)) out.push(dim(`    ${line.text}`));
    }
    return out.join('\n');
}

// 面板的 MCP 一行：demo(2) fs(14)
export function mcpPanelText(manager: McpManager): string {
    if (manager.servers.length === 0) return '无';
    if (manager.servers.some((s) => s.status === 'connecting')) return '连接中…';
    return manager.servers.map((s) => {
        if (s.status === 'connected') return `${s.name}(${toolCount(s)})`;
        return `${s.name}(${s.status === 'failed' ? '失败' : '已退出'})`;
    }).join(' ');
}

// 启动时要显示的行：每个失败的服务器一行，工具总数超过 128 时再加一条警告
export function mcpStartupMessages(manager: McpManager, totalTools: number): string[] {
    const lines = manager.servers.filter((s) => s.status === 'failed').map((s) => `MCP 服务器 ${s.name} 启动失败：${s.error}`);
    if (totalTools > TOOL_WARN_COUNT) lines.push(`MCP 工具共 ${totalTools} 个，超过 OpenAI 单次请求的 ${TOOL_WARN_COUNT} 个上限`);
    return lines;
}
