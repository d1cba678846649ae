// 基准用：flood 先写 50 MiB 的 100 字节 notifications/message 短行再回答；big 回答一行 20 MiB 的结果
import { serve, text, tool } from './lib.mjs';

const line = '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"' + 'x'.repeat(28) + '"}}\n';
const flood = Buffer.from(line.repeat((50 * 1024 * 1024) / 100));
serve({
    tools: [tool('flood'), tool('big')],
    call(name) {
        if (name === 'big') return text('x'.repeat(20 * 1024 * 1024));
        process.stdout.write(flood);
        return text('flood done');
    },
});
