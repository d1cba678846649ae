// 各阶段演示脚本的形状，以及写脚本用的两个小工具。脚本由 scripts/demo.ts 按阶段名加载。
import type { FakeReply } from '../fake-model/replies.ts';
import type { RecordedRequest } from '../fake-model/server.ts';

export interface DemoScript {
    input: string[];                                                    // 逐行送进 stdin 的输入，包括确认问题的 y
    replies: FakeReply[] | ((req: RecordedRequest, n: number) => FakeReply);   // 按顺序的回答，或按请求内容现编（如复述工具结果）
    setup?: (cwd: string, home: string) => void;                       // 运行前在临时目录里放好文件（home 是 Agent 的 HOME）
    trace?: { channels: string; show: RegExp; max: number };           // 打开协议追踪，记录末尾附上 trace.log 里匹配 show 的前 max 行
}

// 写脚本用的两个小工具：一段文字回复（可带思考），一次工具调用（id 固定，记录才可复现）
export const say = (text: string, reasoning?: string): FakeReply => ({ kind: 'text', text, reasoning });
export const callTools = (...calls: [string, object][]): FakeReply => ({
    kind: 'tools',
    calls: calls.map(([name, args], i) => ({ id: `call_demo_${i + 1}`, name, arguments: JSON.stringify(args) })),
});
