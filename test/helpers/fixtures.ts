// 测试用的录制夹具和断言：录制的服务商响应（test/fixtures 下）读成假模型的回复，假模型拒绝过的请求算测试失败。
// 假模型本身在 scripts/fake-model/（npm run check 也用它）。
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeServer } from '../../scripts/fake-model/server.ts';

// 录制的服务商响应放在 test/fixtures 下；从本文件位置推算，不依赖 cwd
const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
export const SSE_FIXTURES = path.join(FIXTURES, 'openai-sse');
export const ERROR_FIXTURES = path.join(FIXTURES, 'openai-errors');

// 解析 .http 夹具：状态行、响应头、空行，其后是原样的响应体字节（不补也不删换行）
export function loadHttpFixture(file: string): { kind: 'http'; status: number; headers: Record<string, string>; body: string } {
    const text = readFileSync(path.resolve(ERROR_FIXTURES, file), 'utf8');
    const end = /\r?\n\r?\n/.exec(text);
    if (!end) throw new Error(`夹具缺少头部与正文之间的空行：${file}`);
    const [statusLine, ...headerLines] = text.slice(0, end.index).split(/\r?\n/);
    const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(statusLine)?.[1]);
    if (!status) throw new Error(`夹具状态行无法解析：${statusLine}`);
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    return { kind: 'http', status, headers, body: text.slice(end.index + end[0].length) };
}

// 读取 openai-sse 夹具原始字节作为回复（CRLF 等必须原样保留，所以读 Buffer）
export function sseFixture(name: string): { kind: 'sse'; body: Buffer } {
    const file = name.endsWith('.sse') ? name : `${name}.sse`;
    return { kind: 'sse', body: readFileSync(path.resolve(SSE_FIXTURES, file)) };
}

// 一个确定没人监听的 base URL，用来测"连接被拒绝"
export async function unusedBaseUrl(): Promise<string> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return `http://127.0.0.1:${port}/v1`;
}

export function assertNoRejections(server: FakeServer): void {
    const rejected = server.requests.filter((r) => r.rejected !== undefined);
    if (rejected.length === 0) return;
    const lines = rejected.map((r) => `#${server.requests.indexOf(r)} ${r.method} ${r.path}: ${r.rejected}`);
    assert.fail(`假服务拒绝了 ${rejected.length} 个请求：\n${lines.join('\n')}`);
}
