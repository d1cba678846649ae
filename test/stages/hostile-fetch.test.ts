// 压缩炸弹：fetch 自动解开 gzip，几十 KiB 的响应能解出几十上百 MiB。Agent 边读边数，解压后读到 4 MiB 就断开，
// 结果开头说明只读了多少。本地服务发完压缩数据后不结束响应：整个读完再截断的写法会一直等到抓取超时，
// 所以「照常拿到前 4 MiB、连接被断开」就说明是读的时候停下的。
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { waitUntil } from '../helpers/wait.ts';

const MiB = 1024 * 1024;
// 64 MiB 的同一个字母压成约 64 KiB
const BOMB = zlib.gzipSync(Buffer.alloc(64 * MiB, 'x'), { level: 9 });

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 抓网页不被压缩炸弹撑爆`, () => {
        let web: http.Server;
        let base = '';
        let closed = 0;   // 被客户端断开的炸弹响应

        before(async () => {
            web = http.createServer((_req, res) => {
                res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Encoding': 'gzip' });
                res.write(BOMB);   // 故意不 end()
                res.on('close', () => closed++);
            });
            await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
            base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
        });
        after(async () => {
            web.closeAllConnections();
            await new Promise<void>((resolve) => web.close(() => resolve()));
        });

        test('64 KiB 的 gzip 解出 64 MiB：读到 4 MiB 就断开，结果开头说明只读了前 4 MiB', async () => {
            const r = await runAgent(stage, { input: ['抓这个', 'y'], replies: [
                tools(call('f1', 'fetch', { url: `${base}/bomb.txt` })),
                text('抓完了'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            const result = r.results.f1;
            assert.ok(result.startsWith('（正文超过 4 MiB，只读了前 4 MiB，后面的没有下载）\nxxxx'), result.slice(0, 200));
            const total = Number(/已截断，共 (\d+) 个字符\)$/.exec(result)?.[1]);
            assert.ok(total > 4 * MiB && total < 4 * MiB + 100, `结果原文 ${total} 个字符`);
            await waitUntil('Agent 断开炸弹响应的连接', () => closed === 1);
        });
    });
}
