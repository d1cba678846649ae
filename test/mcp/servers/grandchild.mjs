// 通过 sh -c 启动的孙进程：stdin 关闭后仍不退出（定时器还在），但 SIGTERM 会结束它
import { serve, tool } from './lib.mjs';

setInterval(() => {}, 1000);
serve({ tools: [tool('grand')] });
