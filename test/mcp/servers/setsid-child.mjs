// 启动时用 setsid 把一条命令（MCP_SETSID_COMMAND）放进新的会话：它离开了服务器的进程组，杀组杀不到它
import { spawn } from 'node:child_process';
import { serve, tool } from './lib.mjs';

spawn('sh', ['-c', `setsid ${process.env.MCP_SETSID_COMMAND} > /dev/null 2>&1 &`], { stdio: 'ignore' });
serve({ tools: [tool('noop')] });
