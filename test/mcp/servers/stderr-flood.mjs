// 启动时往 stderr 写 10 000 行；客户端必须一直读走 stderr，否则管道写满服务器就卡住
import { serve, tool } from './lib.mjs';

let chunk = '';
for (let i = 1; i <= 10000; i++) chunk += `flood line ${i} ${'.'.repeat(60)}\n`;
process.stderr.write(chunk);
serve({ tools: [tool('after_flood')] });
