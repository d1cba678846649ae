// 第 1 天的演示：/help、流式对话（先显示思考内容）、多轮记忆。
import { say, type DemoScript } from './script.js';

const script: DemoScript = {
    input: ['/help', '你好，用一句话介绍你自己', '我刚才让你做什么？'],
    replies: [
        say('你好！我是 GeekAgent，一个在终端里陪你写代码的助手。', '用户打招呼，要一句自我介绍。'),
        say('你让我用一句话介绍自己——每一轮我都会收到完整的对话历史，所以记得。'),
    ],
};
export default script;
