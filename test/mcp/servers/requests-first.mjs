// 收到 initialize 后先发 roots/list（id 0）、ping（id "p1"）和一条日志通知，
// 等客户端回答并检查无误，才回答 initialize。两边都会出现 id 0 和 1，只能按形状分辨。
import { serve, send, record } from './lib.mjs';

let initId;
const answers = new Map();
serve({
    onMessage(msg) {
        if (msg.method === 'initialize') {
            initId = msg.id;
            send({ jsonrpc: '2.0', id: 0, method: 'roots/list' });
            send({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
            send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: '握手前的日志' } });
            return true;
        }
        if (msg.method === undefined && (msg.id === 0 || msg.id === 'p1')) {
            answers.set(msg.id, msg);
            if (answers.size === 2) {
                const ok = answers.get(0).error?.code === -32601 && JSON.stringify(answers.get('p1').result) === '{}';
                record({ checked: ok });
                if (ok) send({ jsonrpc: '2.0', id: initId, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'rf', version: '1' } } });
                else send({ jsonrpc: '2.0', id: initId, error: { code: -32603, message: 'bad answers from client' } });
            }
            return true;
        }
        return false;
    },
    tools: [{ name: 'hello', inputSchema: { type: 'object', properties: {} } }],
});
