// Day 12：抓网页 fetch。先检查网址、再问你、再联网；HTML 变成纯文字交给模型。第 14 天的知识库收录网址也用这里的 fetchText。
import { htmlToText } from './html.ts';
import { confirm, registerTool, stringArg } from './tools.ts';

const TIMEOUT_MS = 15_000;        // 连接、等响应头、读完正文，总共这么久
const MAX_BYTES = 1 << 20;        // 正文最多读 1 MiB：交给模型的只有开头，读得再多只是占内存

export function registerFetchTool(): void {
    registerTool({
        name: 'fetch',
        description: '抓取一个 http/https 网页，转成纯文字返回（执行前会请用户确认）',
        parameters: {
            type: 'object',
            properties: { url: { type: 'string', description: '完整的 http(s) 地址' } },
            required: ['url'],
            additionalProperties: false,
        },
        async run(args, signal) {
            const url = stringArg(args, 'url').trim();
            const bad = checkUrl(url);
            if (bad) return bad;   // 明显不对的地址不必打扰你
            // 问题里网址原样显示（显示时控制字符经 visible() 转义）；下面一行是真正要连的主机：
            // http://apple.com@evil.com/ 连的是 evil.com，国际化域名显示成 punycode，看得出 аpple.com 不是 apple.com
            if (!(await confirm(`即将抓取：${url}\n主机：${new URL(url).host}\n确认抓取？`))) return '已取消抓取';
            return (await fetchText(url, signal)) || '（页面没有可读的文字）';
        },
    });
}

/** 只认 http 和 https：file:、data: 之类要么读本机文件，要么根本不是网页。合法时返回 null。 */
export function checkUrl(url: string): string | null {
    try {
        const { protocol } = new URL(url);
        return protocol === 'http:' || protocol === 'https:' ? null : `只支持 http/https 网址：${url}`;
    } catch {
        return `不是有效的网址：${url}`;
    }
}

/**
 * 取回网页并变成文字（可能是空串）。失败时抛出一句中文说明，execTool 把它变成「工具执行失败：…」交给模型。
 * signal：Ctrl+C 取消这一轮时连接立刻断开；重定向照跟（Node 的 fetch 只跟到 http(s)）。
 */
export async function fetchText(url: string, signal: AbortSignal): Promise<string> {
    try {
        const res = await fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]) });
        if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`.trimEnd());
        const body = await readCapped(res);
        return /html/i.test(res.headers.get('content-type') ?? '') ? htmlToText(body) : body.trim();
    } catch (e) {
        if (signal.aborted) throw new Error('抓取已取消');
        if ((e as Error).name === 'TimeoutError') throw new Error(`抓取超时（${TIMEOUT_MS / 1000} 秒）`);
        // Node 的 fetch 只说 fetch failed，真正的原因（ECONNREFUSED、证书错误……）在 cause 里
        throw new Error(`抓取失败：${(e as { cause?: Error }).cause?.message ?? (e as Error).message}`);
    }
}

/** 边读边数，读到 MAX_BYTES 就停：跳出循环会取消这个流，连接断开，服务器后面的字节不再收（gzip 解出来的也一样）。 */
async function readCapped(res: Response): Promise<string> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body ?? []) {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_BYTES) break;
    }
    // 按 UTF-8 解码：GBK 这类老编码的页面会乱码（加固版按 charset 解码）
    const text = Buffer.concat(chunks).subarray(0, MAX_BYTES).toString('utf8');
    return size >= MAX_BYTES ? `（正文超过 1 MiB，只读了开头）\n${text}` : text;
}
