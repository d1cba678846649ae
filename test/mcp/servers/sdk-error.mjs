// 官方 SDK 写的服务器出错时的样子：McpError 的 message 是「MCP error <code>: …」，错误响应的 message 开头因此重复一遍错误码。
// 还有一个工具回的错误码和 message 开头的不一样（服务器转述另一个错误）：那一段不该被去掉
import { send, serve, tool } from './lib.mjs';

serve({
    tools: [tool('explode'), tool('relay')],
    onMessage(msg) {
        if (msg.method !== 'tools/call') return false;
        const message = msg.params?.name === 'relay' ? 'MCP error -32602: upstream said no' : 'MCP error -32603: disk on fire';
        send({ jsonrpc: '2.0', id: msg.id, error: { code: -32603, message } });
        return true;
    },
});
