// 第 1 天的演示：/help、流式对话（先显示思考内容）、多轮记忆（每轮重发整个历史）、HTTP 503 后按 Retry-After 重试、
// 模型输出里的控制字符显示成转义、/trace 关掉追踪。打开协议追踪，记录末尾附上和模型收发的原文。
import { say, type DemoScript } from './script.ts';

// 第一条回复手写成 SSE 原文：假服务自己生成的块带着每次都不同的 created 时间戳，追踪摘录就没法逐字比较了
const event = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'demo-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const firstReply = [
    event({ role: 'assistant', reasoning_content: '用户打招呼，要一句自我介绍。' }),
    event({ content: '你好！我是 GeekAgent，' }),
    event({ content: '在终端里陪你写代码。' }),
    event({}, 'stop'),
    'data: [DONE]\n\n',
].join('');

const script: DemoScript = {
    trace: { channels: 'llm', show: /llm/, max: 8 },
    input: ['/help', '你好，介绍一下你自己', '我刚才让你做什么？', '帮我清一下屏', '/trace'],
    replies: [
        { kind: 'sse', body: firstReply },
        say('你让我介绍自己——每一轮我都会收到完整的对话历史，所以记得。'),
        { kind: 'http', status: 503, headers: { 'retry-after': '1' }, body: '{"error":{"message":"Service is too busy","type":"server_error"}}' },
        say('\x1b[2J\x1b[H好了，屏幕清干净了。'),
    ],
};
export default script;
