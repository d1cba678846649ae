// build 工具要 RUN_MS 毫秒才完成；PROGRESS_MS 大于 0 时，每隔这么久按请求里的 progressToken 报一次进度，
// 为 0 时一声不吭。记录收到的 notifications/cancelled
import { record, send, serve, text, tool } from './lib.mjs';

const runMs = Number(process.env.RUN_MS ?? 13000);
const every = Number(process.env.PROGRESS_MS ?? 0);
serve({
    tools: [tool('build')],
    call: (_name, _args, msg) => new Promise((resolve) => {
        const token = msg.params?._meta?.progressToken;
        const started = Date.now();
        let step = 0;
        const ticker = every > 0 && token !== undefined ? setInterval(() => {
            step += 1;
            send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: step, message: `已用 ${Date.now() - started} ms` } });
        }, every) : undefined;
        setTimeout(() => {
            clearInterval(ticker);
            resolve(text(`build 完成，用时 ${Date.now() - started} ms`));
        }, runMs);
    }),
    onMessage(msg) {
        if (msg.method === 'notifications/cancelled') record({ cancelled: msg.params?.requestId, reason: msg.params?.reason });
        return false;
    },
});
