// Day 12：抓网页（fetch 工具和知识库共用）。只管“取回来、变成文字”；
// 要不要先问用户、结果怎么进历史，由调用方决定。不重试：网页抓取失败时让模型自己决定下一步。
import { htmlTitle, htmlToText } from './html.ts';
import { truncateOutput } from './tools.ts';

export const FETCH_TIMEOUT_MS = 15_000;   // 连接、等响应头、读完正文，总共这么久

export type FetchResult =
    // url：跟随重定向之后的最终地址；title：只有 HTML 才有，没有 <title> 时为空串；text：全文，交给模型之前才截断
    | { ok: true; url: string; isHtml: boolean; title: string; text: string }
    // message：可以直接给用户看的中文说明；status、statusText 只在 kind 为 'http' 时有，target（另一个站点的地址）只在 'redirect' 时有
    | {
        ok: false; kind: 'input' | 'http' | 'timeout' | 'network' | 'redirect'; message: string;
        status?: number; statusText?: string; target?: string;
    };

/**
 * 抓取 URL 并转成文字。从不抛错：所有失败都变成 {ok: false, message}。
 * signal：这一轮被取消（Esc / Ctrl+C）时立刻断开连接，不在后台继续下载。
 */
export async function fetchText(raw: string, timeoutMs = FETCH_TIMEOUT_MS, signal?: AbortSignal): Promise<FetchResult> {
    const bad = checkUrl(raw);
    if (bad) return { ok: false, kind: 'input', message: bad };
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
        const got = await fetchSameSite(raw, signal ? AbortSignal.any([timeout, signal]) : timeout);
        if ('ok' in got) return got;   // 重定向到了另一个站点，或者重定向太多次
        const { url, res } = got;
        if (!res.ok) {
            await res.body?.cancel().catch(() => {});    // 不读正文也要释放连接
            return { ok: false, kind: 'http', message: `抓取失败：HTTP ${res.status}`, status: res.status, statusText: res.statusText };
        }
        const contentType = res.headers.get('content-type') ?? '';
        const isHtml = /html/i.test(contentType);
        // 正文的读取也受同一个超时约束：服务器慢慢吐字节同样会超时
        const body = await boundedText(res, contentType, isHtml);
        return { ok: true, url, isHtml, title: isHtml ? htmlTitle(body) : '', text: isHtml ? htmlToText(body) : body };
    } catch (e) {
        if (signal?.aborted) return { ok: false, kind: 'network', message: '抓取已取消' };
        if (timeout.aborted) return { ok: false, kind: 'timeout', message: `抓取超时（${timeoutMs / 1000}s），请稍后再试` };
        return { ok: false, kind: 'network', message: `抓取失败：${errorText(e)}` };
    }
}

/** fetch 工具的输出：成功时是正文（太长就和其他工具一样截断）；失败时是提示，HTTP 错误带上状态文字。 */
export function formatFetchResult(result: FetchResult): string {
    if (!result.ok) {
        if (result.kind === 'http') return `请求失败：HTTP ${result.status} ${result.statusText ?? ''}`.trimEnd();
        return result.message;
    }
    return result.text ? truncateOutput(result.text) : '（页面没有可读的文字）';
}

// —— 加固：只认 http(s)、重定向只在同一站点内跟、正文有上限、按字符集解码、说出连接失败的真正原因 ——

/** 校验 URL：顺序是 空 → 解析不了 → 协议不对。通过返回 null。调用方应在询问用户之前先调它。 */
export function checkUrl(raw: string): string | null {
    if (!raw) return '缺少参数：url';
    let url: URL;
    try {
        url = new URL(raw);
    } catch {
        return `无效的 URL：${raw}`;
    }
    // file:、data:、javascript: 之类一律不碰：它们要么能读本机文件，要么根本不是网页
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return '只支持 http/https 链接';
    return null;
}

const MAX_REDIRECTS = 5;

/**
 * 重定向自己跟：同一站点照跟（最多 MAX_REDIRECTS 次）；换了站点就停下，带着 target 交给调用方重新问用户
 * （用户同意的只是原来那个站点）。返回最终的响应和它的地址。
 */
async function fetchSameSite(raw: string, signal: AbortSignal): Promise<{ url: string; res: Response } | FetchResult> {
    let url = raw;
    for (let hops = 0; ; hops++) {
        const res = await fetch(url, { signal, redirect: 'manual' });
        const location = res.headers.get('location');
        if (res.status < 300 || res.status > 399 || !location) return { url, res };
        await res.body?.cancel().catch(() => {});
        const next = new URL(location, url);
        if (next.origin !== new URL(url).origin) {
            return { ok: false, kind: 'redirect', target: next.href, message: `${url} 重定向到了另一个站点：${next.href}，没有跟过去` };
        }
        if (hops >= MAX_REDIRECTS) return { ok: false, kind: 'network', message: `抓取失败：重定向超过 ${MAX_REDIRECTS} 次` };
        url = next.href;
    }
}

const FETCH_MAX_BYTES = 4 * 1024 * 1024;

/**
 * 边读边数，解压后的正文读到 FETCH_MAX_BYTES 就断开连接，按字符集解码，开头一行说明只读了多少。
 * fetch 会自动解开 gzip：一个 200 KiB 的压缩包能解出几百 MiB，整个读进内存（arrayBuffer）Agent 就撑爆了。
 * 说明放在开头：fetch 工具的结果从头截断，放在末尾会被截掉。
 */
async function boundedText(res: Response, contentType: string, isHtml: boolean): Promise<string> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let cut = false;
    if (res.body) {
        const reader = res.body.getReader();
        for (let r = await reader.read(); !r.done; r = await reader.read()) {
            const room = FETCH_MAX_BYTES - size;
            chunks.push(r.value.subarray(0, room));
            size += Math.min(r.value.length, room);
            if (r.value.length > room) {
                cut = true;
                await reader.cancel().catch(() => {});   // 断开连接，服务器后面的字节不再收、不再解压
                break;
            }
        }
    }
    const text = decodeByCharset(Buffer.concat(chunks), contentType, isHtml);
    return cut ? `（正文超过 ${FETCH_MAX_BYTES >> 20} MiB，只读了前 ${FETCH_MAX_BYTES >> 20} MiB，后面的没有下载）\n${text}` : text;
}

/**
 * 按字符集解码：先看响应头的 charset，HTML 再看前 1024 字节里的 <meta charset>，都没有就当 UTF-8。
 * 不少中文老站是 GBK，直接按 UTF-8 解会变成乱码。Node 不认识的字符集也退回 UTF-8。
 */
function decodeByCharset(bytes: Uint8Array, contentType: string, isHtml: boolean): string {
    let charset = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType)?.[1];
    if (!charset && isHtml) {
        const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
        charset = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
    }
    try {
        return new TextDecoder(charset ?? 'utf-8').decode(bytes);
    } catch {
        return new TextDecoder('utf-8').decode(bytes);
    }
}

/** Node 的 fetch 只说 "fetch failed"，真正的原因（ECONNREFUSED、证书错误……）在 cause 里。 */
function errorText(e: unknown): string {
    if (!(e instanceof Error)) return String(e);
    const cause = e.cause as { message?: string; code?: string } | undefined;
    return cause?.message || cause?.code || e.message;
}
