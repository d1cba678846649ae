// 敌意的 JSON：合法、但嵌套极深的行。JSON.parse 不怕，JSON.stringify、String()、逐层清理模式都会撑爆调用栈。
// 参数 line：握手之后发一行十万层的 [[[…]]]、一条 level 和 data 都深达十万层的通知；工具 structured 的结果、
// 工具 fail 的错误对象也深达十万层。参数 schema：工具列表里有一个输入模式深达两万层的工具，旁边是一个正常的工具。
// 深的部分都用字符串拼出来：服务器自己的 JSON.stringify 同样会撑爆
import { send, serve, text, tool } from './lib.mjs';

const mode = process.argv[2];
const deep = (n) => '['.repeat(n) + ']'.repeat(n);
const raw = (line) => process.stdout.write(line + '\n');
const schemaOf = (levels) => '{"type":"object","properties":{"a":'.repeat(levels) + '{}' + '}}'.repeat(levels);
const tools = mode === 'schema' ? [tool('ok')] : [tool('ok'), tool('structured'), tool('fail')];

serve({
    tools,
    call: (name) => text(`called ${name}`),
    onMessage(msg) {
        if (msg.method === 'notifications/initialized' && mode === 'line') {
            raw(deep(100_000));
            raw(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":${deep(100_000)},"data":${deep(100_000)}}}`);
        }
        if (msg.method === 'tools/list' && mode === 'schema') {
            const deepTool = `{"name":"deep","description":"两万层的输入模式","inputSchema":${schemaOf(20_000)}}`;
            raw(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"tools":[${JSON.stringify(tools[0])},${deepTool}]}}`);
            return true;
        }
        if (msg.method === 'tools/call' && msg.params?.name === 'structured') {
            raw(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"content":[{"type":${deep(100_000)}}],"structuredContent":${deep(100_000)}}}`);
            return true;
        }
        if (msg.method === 'tools/call' && msg.params?.name === 'fail') {
            raw(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"error":{"code":${deep(100_000)},"message":${deep(100_000)}}}`);
            return true;
        }
        return false;
    },
});
