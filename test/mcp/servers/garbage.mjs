// 在正确的回答周围夹杂各种噪声：横幅文字、数组、半截 JSON、未知 id 的响应、空行、CRLF、批量消息
import { serve, send, text, tool } from './lib.mjs';

const raw = (s) => process.stdout.write(s);
raw('Garbage server v1 starting...\n\n');
raw('[1,2]\n');
raw('{"jsonrpc":"2.0","id":\n');
raw('{"jsonrpc":"2.0","id":999,"result":{}}\r\n');
raw('   \r\n\r\n');
raw('{"jsonrpc":"2.0","id":null,"method":"odd"}\n');

serve({
    tools: [tool('echo')],
    call: (name, args) => text(`echo:${args.text ?? ''}`),
    onMessage(msg) {
        if (msg.method === 'tools/list') {
            // 响应用 CRLF 结尾、键的顺序 result, jsonrpc, id，前面加一个批量消息（通知 + ping 请求）
            raw(JSON.stringify([
                { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: '批量里的通知' } },
                { jsonrpc: '2.0', id: 'b1', method: 'ping' },
            ]) + '\n');
            raw('INFO: listing tools\r\n');
            raw(JSON.stringify({ result: { tools: [tool('echo')] }, jsonrpc: '2.0', id: msg.id }) + '\r\n\n');
            return true;
        }
        if (msg.id === 'b1') send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: `ping 回答：${JSON.stringify(msg.result)}` } });
        return false;
    },
});
