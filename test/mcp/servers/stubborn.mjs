// 既不理会 stdin 关闭，也不理会 SIGTERM / SIGINT：只有 SIGKILL 能结束它
import { serve, tool } from './lib.mjs';

process.on('SIGTERM', () => process.stderr.write('stubborn：收到 SIGTERM，不理会\n'));
process.on('SIGINT', () => {});
setInterval(() => {}, 1000);
serve({ tools: [tool('stay')] });
