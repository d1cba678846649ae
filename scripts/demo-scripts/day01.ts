// 第 1 天的演示：/help、流式对话（先显示思考内容）、多轮记忆（每轮重发整个历史）、HTTP 503 之后重试、
// 模型输出里的控制字符显示成转义。
import { say, type DemoScript } from './script.ts';

const script: DemoScript = {
    input: ['/help', '你好，介绍一下你自己', '我刚才让你做什么？', '帮我清一下屏'],
    replies: [
        say('你好！我是 GeekAgent，在终端里陪你写代码。', '用户打招呼，要一句自我介绍。'),
        say('你让我介绍自己——每一轮我都会收到完整的对话历史，所以记得。'),
        { kind: 'http', status: 503, body: '{"error":{"message":"Service is too busy","type":"server_error"}}' },
        say('\x1b[2J\x1b[H好了，屏幕清干净了。'),
    ],
};
export default script;
