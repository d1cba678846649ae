// 规模相关的纯函数：模式清理、按原名挑选工具、进度通知重新计时。经真实入口的检查在 test/stages/mcp-scale.test.ts
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RequestTable } from '../../hardened/jsonrpc.ts';
import { toolChoice } from '../../hardened/mcp-budget.ts';
import { withProgressToken } from '../../hardened/mcp-client.ts';
import { sanitizeSchema } from '../../hardened/schema.ts';

describe('模式清理', () => {
    it('任何一层的 propertyNames 都删掉；名叫 propertyNames 的属性和数据里的不动；不改原对象', () => {
        const original = {
            type: 'object',
            properties: {
                data: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: { type: 'string' } },
                propertyNames: { type: 'string', default: { propertyNames: 1 }, enum: [{ propertyNames: 2 }] },
                deep: { anyOf: [{ type: 'object', patternProperties: { '^x': { type: 'object', propertyNames: { pattern: '^a' } } } }, { type: 'null' }] },
            },
        };
        const copy = structuredClone(original);
        assert.deepEqual(sanitizeSchema(original), {
            type: 'object',
            properties: {
                data: { type: 'object', additionalProperties: { type: 'string' } },
                propertyNames: { type: 'string', default: { propertyNames: 1 }, enum: [{ propertyNames: 2 }] },
                deep: { anyOf: [{ type: 'object', patternProperties: { '^x': { type: 'object' } } }, { type: 'null' }] },
            },
        });
        assert.deepEqual(original, copy);
    });

    it('没有 items 的数组补上 items: {}；已有的 items、$ref、$defs 保持原样', () => {
        const schema = {
            type: 'object',
            properties: {
                a: { type: 'array' },
                b: { type: ['array', 'null'] },
                c: { type: 'array', items: { $ref: '#/$defs/item' } },
                d: { type: 'array', items: [{ type: 'string' }, { type: 'array' }] },
            },
            $defs: { item: { type: 'object', properties: { tags: { type: 'array' } } } },
        };
        assert.deepEqual(sanitizeSchema(schema), {
            type: 'object',
            properties: {
                a: { type: 'array', items: {} },
                b: { type: ['array', 'null'], items: {} },
                c: { type: 'array', items: { $ref: '#/$defs/item' } },
                d: { type: 'array', items: [{ type: 'string' }, { type: 'array', items: {} }] },
            },
            $defs: { item: { type: 'object', properties: { tags: { type: 'array', items: {} } } } },
        });
    });
});

describe('includeTools / excludeTools', () => {
    it('按原名；都不写时全要；都写时先 include 再 exclude', () => {
        const pick = (config: object) => ['a', 'b', 'c'].filter(toolChoice({ command: 'x', args: [], env: {}, timeout: 1, ...config }));
        assert.deepEqual(pick({}), ['a', 'b', 'c']);
        assert.deepEqual(pick({ includeTools: ['c', 'a', 'zzz'] }), ['a', 'c']);
        assert.deepEqual(pick({ excludeTools: ['b'] }), ['a', 'c']);
        assert.deepEqual(pick({ includeTools: ['a', 'b'], excludeTools: ['b'] }), ['a']);
        assert.deepEqual(pick({ includeTools: [] }), []);
        assert.deepEqual(['a'].filter(toolChoice(undefined)), ['a']);
    });
});

describe('进度通知', () => {
    it('tools/call 带上进度令牌（请求 id）；每次进度重新计时，沉默超过上限才超时；别的方法不带令牌', async () => {
        const sent: any[] = [];
        // 客户端发给请求表的 send 就是这样接的：进度令牌是 MCP 的规矩，只加在 tools/call 上
        const table = new RequestTable((m) => sent.push(withProgressToken(m)), () => {});
        const started = Date.now();
        const call = table.request('tools/call', { name: 'x', arguments: {} }, 300);
        assert.deepEqual(sent[0].params, { name: 'x', arguments: {}, _meta: { progressToken: 1 } });
        table.request('ping', {}, 5000).catch(() => {});
        assert.deepEqual(sent[1].params, {});
        // 每 100 ms 报一次进度、报 6 次：总共 600 ms 多，远超 300 ms 的上限，但从没沉默超过 300 ms
        // （繁忙的机器上 100 ms 的等待要拖到 300 ms 以上才会误判）
        for (let i = 0; i < 6; i++) {
            await new Promise((r) => setTimeout(r, 100));
            table.restart(1);
            table.restart(99);    // 不认识的 id 忽略（字符串令牌由客户端挡掉：notifications/progress 只认数字令牌）
        }
        await assert.rejects(call, /请求 tools\/call 超时（0.3 秒内没有响应）/);
        assert.ok(Date.now() - started >= 900, `${Date.now() - started} ms 就超时了`);
        table.close(new Error('done'));
    });
});
