// Day 15：握手从来没有回答的服务器。配置里的 timeout 是 1 秒，握手却至少等 30 秒（冷启动的 npx 要先下载包）；
// 到点报错、不为 initialize 发取消（协议不允许）、进程清理干净。
// 30 秒用模拟时钟走完（node:test 的 mock.timers，只换 setTimeout）：服务器进程、管道、收到的消息都是真的，
// 只有「过去了 30 秒」是拨出来的——不然这一个测试就让第 15 天的测试多等半分钟。
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { it } from 'node:test';
import { McpManager } from '../../hardened/mcp-setup.ts';
import { fakeRegistry, leftovers, readRecords, server, serverOf, tempDir } from './util.ts';

/** 等一件由真实 I/O 促成的事：计时器被模拟了，只能用 setImmediate 让出事件循环；期限按真实时间算。 */
async function untilReal(what: string, check: () => boolean): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!check()) {
        if (Date.now() > deadline) assert.fail(`等待超时：${what}`);
        await new Promise((resolve) => setImmediate(resolve));
    }
}

it('握手超时：配置 1 秒也等满 30 秒，到点报错，不为 initialize 发取消，进程已清理', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const mark = randomUUID();
    const log = join(tempDir(), 'never.log');
    const never = new McpManager([{ name: 'never', config: {
        command: process.execPath, args: [server('never-answers.mjs')], env: { GEEKAGENT_TEST_MARK: mark, MCP_TEST_LOG: log }, timeout: 1000,
    } }], fakeRegistry());
    const connected = never.connectAll();
    await untilReal('服务器收到 initialize', () => readRecords(log).length > 0);

    t.mock.timers.tick(29_999);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(serverOf(never, 'never').status, 'connecting', '30 秒还没到就放弃了');

    t.mock.timers.tick(1);
    // 超时后停服务器要轮询进程是否还在（每 20 ms 一次）：把模拟时钟一直往前拨，直到连接结束
    let done = false;
    void connected.then(() => { done = true; });
    await untilReal('握手失败、服务器停掉', () => {
        t.mock.timers.tick(20);
        return done;
    });
    const s = serverOf(never, 'never');
    assert.equal(s.status, 'failed');
    assert.equal(s.error, '请求 initialize 超时（30 秒内没有响应）');
    assert.deepEqual(readRecords(log).map((r) => r.msg.method), ['initialize']);
    assert.deepEqual(leftovers('never-answers.mjs', mark), []);
});
