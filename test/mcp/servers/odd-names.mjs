// 古怪的工具名：带点、斜杠、80 个字符、x.y 与 x_y 撞名，外加 150 个普通工具
import { serve, text, tool } from './lib.mjs';

const long = 'a'.repeat(80);
const names = ['read.file', 'a/b', long, 'x.y', 'x_y', '中文名'];
for (let i = 0; i < 150; i++) names.push(`tool_${String(i).padStart(3, '0')}`);
serve({ tools: names.map((n) => tool(n)), call: (name) => text(`原名：${name}`) });
