// 调用进行到一半时进程退出（退出码 3），不回答
import { serve, tool } from './lib.mjs';

serve({
    tools: [tool('die')],
    call: () => {
        process.stderr.write('dies-mid-call：要崩溃了\n');
        process.exit(3);
    },
});
