// 抓网页的确认提示写出真正要连的主机：数字写法的 IP 还原成点分形式、国际化域名按 punycode 显示、
// 网址里的「用户名@」骗不了人，本机和内网地址明说。经真实入口、管道输入、假 OpenAI 服务；每个问题都答 n，一个请求也不发出。
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';

// 模型写的网址 → 提示里接在它下面的那一行
const CASES: [string, string][] = [
    ['http://2130706433:9/admin', '主机：127.0.0.1:9（本机地址）'],
    ['http://0x7f.1:9/', '主机：127.0.0.1:9（本机地址）'],
    ['http://[::ffff:127.0.0.1]:9/', '主机：[::ffff:7f00:1]:9（本机地址）'],
    ['http://[::1]:9/', '主机：[::1]:9（本机地址）'],
    ['http://localhost:9/', '主机：localhost:9（本机地址）'],
    ['http://apple.com@192.168.1.1:9/', '主机：192.168.1.1:9（内网地址）'],
    ['http://10.0.0.1:9/', '主机：10.0.0.1:9（内网地址）'],
    ['http://169.254.169.254:9/latest/meta-data/', '主机：169.254.169.254:9（内网地址，链路本地：云服务器的元数据服务就在这一段）'],
    ['http://[fd00::1]:9/', '主机：[fd00::1]:9（内网地址）'],
    ['http://\u0430pple.com/', '主机：xn--pple-43d.com（国际化域名，按 punycode 显示）'],
    ['https://example.com/page', '主机：example.com'],
];

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 抓网页前的确认写出真正的主机`, () => {
        test('fetch：数字写法、IPv6、用户名@、国际化域名都写出真正的主机；本机、内网地址带说明', async () => {
            const r = await runAgent(stage, {
                input: ['抓这些网页', ...CASES.map(() => 'n')],
                replies: [tools(...CASES.map(([url], i) => call(`f${i}`, 'fetch', { url }))), text('好')],
            });
            assert.equal(r.code, 0, r.stderr);
            CASES.forEach(([url, host], i) => {
                assert.ok(r.stdout.includes(`即将抓取：\n${url}\n${host}\n确认抓取？`), `${url}\n${r.stdout}`);
                assert.equal(r.results[`f${i}`], '已取消抓取');
            });
        });

        test('/rag add 网址：收录前的确认也写出真正的主机', async () => {
            const r = await runAgent(stage, { input: ['/rag add http://2130706433:9/doc', 'n'] });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(r.stdout.includes('即将收录到知识库：\nhttp://2130706433:9/doc\n主机：127.0.0.1:9（本机地址）\n确认收录？'), r.stdout);
            assert.match(r.stdout, /已取消收录/);
        });
    });
}
