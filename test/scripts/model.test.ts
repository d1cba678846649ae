// npm run model（你来当模型）：读者在模型终端里回答一句话和一次 run_shell 调用，
// 工具结果回到模型终端，Agent 那边显示读者打的回复。两边都是真实进程：scripts/model.ts 和加固版的入口。
// 它只属于读者：别的 Host、带 Origin（网页）、没有这次密钥、不是 JSON、太大的请求都被拒绝；打印的文字里的控制字符显示成转义。
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { DEADLINE_MS } from '../../scripts/check/spawn.ts';
import { HARDENED_ONLY, REPO_ROOT, runStage } from '../helpers/run-stage.ts';
import { waitUntil } from '../helpers/wait.ts';

/** 启动模型终端；waitFor 等它的输出里出现某段文字（不靠计时：只看输出）。 */
function startModel() {
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(REPO_ROOT, 'scripts', 'model.ts'), '--port', '0'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (output += chunk));
    const waitFor = (text: string) => waitUntil(`模型终端输出「${text}」`, () => output.includes(text), () => output);
    return { child, waitFor, output: () => output, type: (line: string) => child.stdin.write(`${line}\n`) };
}

const KEY_LINE = /^OPENAI_API_KEY=(sk-model-[0-9a-f]{48})$/m;

/** 等横幅打印完，读出地址、端口和这次的密钥。 */
async function banner(model: ReturnType<typeof startModel>) {
    await waitUntil('横幅里的密钥', () => KEY_LINE.test(model.output()), model.output);
    const url = /^OPENAI_BASE_URL=(\S+)$/m.exec(model.output())![1];
    return { url, port: new URL(url).port, key: KEY_LINE.exec(model.output())![1] };
}

/** 用 node:http 发请求：Host、Origin 这些头 fetch 不让随便写。chunked：请求体分块发送，不带 Content-Length。 */
function post(url: string, headers: Record<string, string>, body: string | Buffer, chunked = false): Promise<{ status: number; json: any }> {
    const target = new URL(`${url}/chat/completions`);
    return new Promise((resolve, reject) => {
        let answered = false;
        const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers }, (res) => {
            answered = true;
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
        });
        req.on('error', (e) => answered || reject(e));
        const bytes = Buffer.from(body);
        if (chunked) req.write(bytes.subarray(0, 1));
        req.end(chunked ? bytes.subarray(1) : bytes);
    });
}

const chatBody = (content: string) => JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] });

describe('npm run model：你来当模型', () => {
    const models: ReturnType<typeof startModel>[] = [];
    after(() => models.forEach((m) => m.child.kill()));
    const start = () => {
        const model = startModel();
        models.push(model);
        return model;
    };

    it('打印 OPENAI_BASE_URL 和这次的密钥（每次启动都不同），端口 0 时挑一个空闲端口', async () => {
        const [a, b] = [start(), start()];
        const [first, second] = [await banner(a), await banner(b)];
        assert.match(a.output(), /^OPENAI_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1$/m);
        assert.ok(a.output().includes(`OPENAI_BASE_URL=${first.url} OPENAI_API_KEY=${first.key} npm run dev`), '启动 Agent 的那一行用的是这次的密钥');
        assert.notEqual(first.key, second.key);
    });

    it('不要流的请求（历史压缩、子 Agent）得到一个完整的 JSON 回复；Host 写 localhost 也行', async () => {
        const model = start();
        const { url, port, key } = await banner(model);
        const reply = post(url, { 'Host': `localhost:${port}`, 'Content-Type': 'application/json; charset=utf-8', 'Authorization': `Bearer ${key}` }, chatBody('把上面的对话总结一下'));
        await model.waitFor('[user] 把上面的对话总结一下');
        model.type('我们聊了天气');
        const { status, json } = await reply;
        assert.equal(status, 200);
        assert.equal(json.choices[0].message.content, '我们聊了天气');
        assert.equal(json.choices[0].finish_reason, 'stop');
    });

    // 期限：没被拒绝的请求会排队等回答，测试就停在那里；到期报失败而不是一直挂着
    it('拒绝：别的 Host、带 Origin、没有或不对的密钥、不是 JSON、超过 4 MiB（带不带 Content-Length）；回 OpenAI 格式的中文错误，模型终端各记一行', { timeout: DEADLINE_MS }, async () => {
        const model = start();
        const { url, port, key } = await banner(model);
        const good = { 'Host': `127.0.0.1:${port}`, 'Content-Type': 'application/json', 'Authorization': `Bearer ${key}` };
        const big = Buffer.alloc(4 * 1024 * 1024 + 1, 'a');
        const cases: [string, () => Promise<{ status: number; json: any }>, number, RegExp][] = [
            ['DNS 重绑定的 Host', () => post(url, { ...good, Host: `evil.example:${port}` }, chatBody('偷看')), 403, /Host 是「evil\.example:\d+」/],
            ['别的端口', () => post(url, { ...good, Host: '127.0.0.1:1' }, chatBody('偷看')), 403, /Host 是「127\.0\.0\.1:1」/],
            ['网页发的（带 Origin）', () => post(url, { ...good, Origin: 'http://evil.example' }, chatBody('偷看')), 403, /不收网页发来的请求（Origin：http:\/\/evil\.example）/],
            ['没有密钥', () => post(url, { 'Host': good.Host, 'Content-Type': 'application/json' }, chatBody('偷看')), 401, /密钥不对/],
            ['密钥不对', () => post(url, { ...good, Authorization: `Bearer ${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}` }, chatBody('偷看')), 401, /密钥不对/],
            ['不是 JSON', () => post(url, { ...good, 'Content-Type': 'text/plain' }, chatBody('偷看')), 415, /Content-Type 是「text\/plain」/],
            ['太大（Content-Length）', () => post(url, good, big), 413, /请求体超过 4 MiB/],
            ['太大（分块发送）', () => post(url, good, big, true), 413, /请求体超过 4 MiB/],
        ];
        for (const [what, send, status, message] of cases) {
            const { status: got, json } = await send();
            assert.equal(got, status, what);
            assert.match(json.error.message, message, what);
            assert.equal(json.error.type, 'invalid_request_error', what);
        }
        await waitUntil('每个拒绝一行', () => (model.output().match(/^（拒绝了一个请求：\d{3} [^\n]*）$/gm) ?? []).length === cases.length, model.output);
        assert.doesNotMatch(model.output(), /── 请求 #|偷看/, '被拒绝的请求不显示、不排队');
        // 拒绝过这么多之后，带着密钥的请求照常排队、被回答
        const reply = post(url, good, chatBody('正常的一句'));
        await model.waitFor('[user] 正常的一句');
        model.type('收到');
        assert.equal((await reply).json.choices[0].message.content, '收到');
    });

    it('请求里的 OSC 52（写剪贴板）、清屏、改标题、双向控制符：消息、工具结果和 /show 里都显示成转义', async () => {
        const model = start();
        const { url, port, key } = await banner(model);
        const attack = '\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b]0;pwned\x07\u202e';
        const body = JSON.stringify({
            model: 'm',
            messages: [
                { role: 'user', content: `你好${attack}` },
                { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: `{"path":"${'\\u001b[2J'}"}` } }] },
                { role: 'tool', tool_call_id: 'c1', content: `文件内容${attack}` },
            ],
        });
        const reply = post(url, { 'Host': `127.0.0.1:${port}`, 'Content-Type': 'application/json', 'Authorization': `Bearer ${key}` }, body);
        await model.waitFor('[工具结果 c1]');
        model.type('/show');
        await model.waitFor('"tool_call_id"');
        model.type('好的');
        await reply;
        const shown = '\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\x1b]0;pwned\\x07\\u202e';
        assert.ok(model.output().includes(`[user] 你好${shown}`), model.output());
        assert.ok(model.output().includes(`[工具结果 c1]\n文件内容${shown}`), model.output());
        assert.ok(model.output().includes('\\u202e'), '/show 的 JSON 里的双向控制符也转义');
        assert.doesNotMatch(model.output(), /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
    });

    it('模型终端的转义规则和加固版的 screen-text.ts 是同一条', () => {
        const rule = (file: string) => /^const HIDDEN = .*$/m.exec(fs.readFileSync(file, 'utf8'))?.[0];
        const mine = rule(path.join(REPO_ROOT, 'scripts', 'screen-text.ts'));
        assert.ok(mine);
        for (const stage of HARDENED_ONLY) assert.equal(rule(path.join(REPO_ROOT, stage, 'screen-text.ts')), mine, stage);
    });

    for (const stage of HARDENED_ONLY) {
        it(`${stage}：用这次的密钥，回答一次 run_shell 调用和一句话，工具结果出现在模型终端`, async () => {
            const model = start();
            const { url, key } = await banner(model);
            const agent = runStage(stage, { input: ['看看 echo 能不能用', 'y'], env: { OPENAI_BASE_URL: url, OPENAI_API_KEY: key } });
            await model.waitFor('[user] 看看');
            assert.match(model.output(), /\[user\] 看看 echo 能不能用/);
            assert.match(model.output(), /── 请求 #1：\d+ 条消息，\d+ 个工具（[^）]*run_shell/);
            model.type('/tool run_shell {"command":"echo hello-from-tool"}');
            await model.waitFor('[工具结果');
            assert.match(model.output(), /\[工具结果 call_1\]\n.*hello-from-tool/);
            model.type('echo 可以用，输出是 hello-from-tool');
            const result = await agent;
            assert.match(result.stdout, /echo 可以用，输出是 hello-from-tool/);
            assert.match(result.stdout, /bye/);
            assert.doesNotMatch(model.output(), /拒绝了一个请求/);
        });
    }
});
