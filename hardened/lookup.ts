// Day 12：代码搜索和网页抓取两个工具（实现在 search.ts、web.ts，这里只做注册和权限）。
import { hostNote } from './host.ts';
import { authorize, permissionRoot, safePath } from './permissions.ts';
import { searchFiles } from './search.ts';
import { registerTool } from './tools.ts';
import { checkUrl, fetchText, FETCH_TIMEOUT_MS, formatFetchResult } from './web.ts';

export function registerLookupTools(): void {
    registerTool({
        name: 'search',
        description: '在项目里按关键字搜索文本（不区分大小写），返回 路径:行号: 内容，最多 50 条；含密钥的文件（.env 这类）不搜',
        parameters: {
            type: 'object',
            properties: {
                pattern: { type: 'string', description: '要找的关键字（普通文本，不是正则）' },
                path: { type: 'string', description: '只在这个子目录下找（相对根目录），默认整个项目' },
            },
            required: ['pattern'],
            additionalProperties: false,
        },
        run(args) {
            const pattern = typeof args.pattern === 'string' ? args.pattern : '';
            const sub = typeof args.path === 'string' && args.path ? args.path : '';
            if (sub) safePath(sub);   // 越界时抛出，execTool 把它变成「工具执行失败：路径越界」
            return searchFiles(permissionRoot(), sub, pattern);
        },
    });

    registerTool({
        name: 'fetch',
        description: '抓取一个 http/https 网页并转成纯文本（最多 2000 个字符；执行前会请用户确认）',
        parameters: {
            type: 'object',
            properties: { url: { type: 'string', description: '完整的 http(s) 地址' } },
            required: ['url'],
            additionalProperties: false,
        },
        authorizes: true,
        async run(args, signal) {
            const url = typeof args.url === 'string' ? args.url.trim() : '';
            const bad = checkUrl(url);   // 先检查再询问：明显不合法的地址不必打扰用户
            if (bad) return bad;
            if (!(await authorize('fetch', `\n即将抓取：\n${url}${hostNote(url)}\n确认抓取？`))) return '已取消抓取';   // 下面一行写出真正的主机
            const result = await fetchText(url, FETCH_TIMEOUT_MS, signal);
            if (!result.ok && result.target) return askBeforeOtherSite(url, result.target, signal);   // 重定向到了另一个站点
            return formatFetchResult(result);
        },
    });
}

// —— 加固：重定向到另一个站点时再问一次 ——

/**
 * 用户同意的只是原来那个站点：fetchText 遇到换站点的重定向会停下（结果里带着 target），
 * 这里每换一次站点问一次，同意就接着抓，拒绝就说明没有跟过去。
 */
async function askBeforeOtherSite(url: string, target: string, signal?: AbortSignal): Promise<string> {
    for (;;) {
        if (!(await authorize('fetch', `\n${url} 重定向到另一个站点，即将抓取：\n${target}${hostNote(target)}\n确认抓取？`))) {
            return `已取消抓取：${url} 重定向到 ${target}，没有跟过去`;
        }
        url = target;
        const result = await fetchText(url, FETCH_TIMEOUT_MS, signal);
        if (result.ok || !result.target) return formatFetchResult(result);
        target = result.target;
    }
}
