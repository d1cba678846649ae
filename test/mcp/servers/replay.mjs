// 回放录下来的工具列表：REPLAY_FILE 指向 test/fixtures/mcp-tools 里的一个文件。
// 任何 tools/call 都只回一行文字，说明调用的是哪个工具（测试只关心交给模型的工具列表）
import { readFileSync } from 'node:fs';
import { serve, text } from './lib.mjs';

serve({
    tools: JSON.parse(readFileSync(process.env.REPLAY_FILE, 'utf8')),
    call: (name) => text(`回放：${name}`),
});
