// 密钥名单跟得上、追踪里藏不住：名字里带 PASS、PWD 段的变量（DB_PASS、MYSQL_PWD、SMTP_PASS）算密钥，PWD、OLDPWD 不算；
// 运行中 .env 里新加的密码从下一次脱敏起就认得；追踪文件里的密钥换了 JSON 写法（\"、\/、\u00fc）也脱敏。
// 经真实入口、管道输入、假 OpenAI 服务验证。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools, buildSse } from '../../scripts/fake-model/replies.ts';
import type { RecordedRequest } from '../../scripts/fake-model/server.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

/** 请求里除了模型自己说的话（assistant 消息里的工具参数是模型给的，原样回传）以外的全部内容。 */
function sentToModel(requests: RecordedRequest[]): string {
    return JSON.stringify(requests.map((q) => ({ ...q.body, messages: q.body.messages.filter((m: any) => m.role !== 'assistant') })));
}

const PASS_ENV = { DB_PASS: 'Db7Kq2Wm9Xr4Lt', MYSQL_PWD: 'My3Vn8Bc1Zs6Hp', SMTP_PASS: 'Sm5Jd0Fg4Ty7Qe' };
const LATE = 'Late-Zr81-Ny46-Value';
// 带引号、斜杠和非 ASCII 字符的密码：JSON 里可以写成 \"、\/、\u00fc
const SPELLED = 'Pa"s/wü-Lm93Kp';

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 密钥名单跟得上`, () => {
        test('DB_PASS、MYSQL_PWD、SMTP_PASS 的值不进请求；PWD（当前目录）照常出现', async () => {
            const cwd = workdir({ 'db.txt': `db=${PASS_ENV.DB_PASS} mysql=${PASS_ENV.MYSQL_PWD}\n` });
            const r = await runAgent(stage, {
                cwd, input: ['看看配置', 'y'], env: { ...PASS_ENV, PWD: cwd, OLDPWD: path.dirname(cwd) },
                replies: [
                    tools(call('file', 'read', { path: 'db.txt' }), call('sh', 'run_shell', { command: 'echo "$SMTP_PASS $DB_PASS"; echo "$PWD"; pwd' })),
                    text('看完了'),
                ],
            });
            assert.equal(r.code, 0, r.stderr);
            const sent = sentToModel(r.requests);
            for (const [name, value] of Object.entries(PASS_ENV)) assert.ok(!sent.includes(value), `模型收到了 ${name}`);
            assert.ok(r.results.file.endsWith('\ndb=[REDACTED:DB_PASS] mysql=[REDACTED:MYSQL_PWD]\n'), r.results.file);
            assert.ok(r.results.sh.startsWith('[REDACTED:SMTP_PASS] [REDACTED:DB_PASS]\n'), r.results.sh);
            assert.ok(r.results.sh.includes(`${cwd}\n${cwd}`), `当前目录不是密钥：${r.results.sh}`);
        });

        test('运行中 .env 里加了密码：下一次工具结果里就脱敏', async () => {
            // 启动时还没有 .env（有的话，文件夹信任会先问它的变量）；第一个工具结果脱敏时名单已经读好
            const cwd = workdir({ 'a.txt': '先读这个\n', 'notes.txt': `新口令 ${LATE}\n` });
            const r = await runAgent(stage, { cwd, input: ['读两个文件'], replies: (_req, n) => {
                if (n === 0) return tools(call('before', 'read', { path: 'a.txt' }));
                if (n === 1) {
                    // 这时用户新建了 .env，写进一个密码
                    fs.writeFileSync(path.join(cwd, '.env'), `LATE_PASSWORD=${LATE}\n`);
                    return tools(call('after', 'read', { path: 'notes.txt' }));
                }
                return text('读完了');
            } });
            assert.equal(r.code, 0, r.stderr);
            assert.ok(r.results.before.endsWith('\n先读这个\n'), r.results.before);
            assert.ok(r.results.after.endsWith('\n新口令 [REDACTED:LATE_PASSWORD]\n'), r.results.after);
            assert.ok(!sentToModel(r.requests).includes(LATE));
        });

        test('追踪文件里的密钥：请求体里的 \\"、回复流里的 \\/ 和 \\u00fc 写法都脱敏', async () => {
            // 回复整段放在一个增量里，再把 / 和 ü 换成 JSON 的另一种写法（有的服务商这样编码）
            const reply = buildSse({ kind: 'text', text: `记下了：${SPELLED}`, chunkSize: 1000 }).replaceAll('/', '\\/').replaceAll('ü', '\\u00fc');
            assert.ok(reply.includes('Pa\\"s\\/w\\u00fc-Lm93Kp'));
            const r = await runAgent(stage, {
                input: [`SMTP 密码是 ${SPELLED}`, '再说一遍'], env: { MAIL_PASSWORD: SPELLED, GEEKAGENT_TRACE: 'llm' },
                replies: [{ kind: 'sse', body: reply }, text('好')],
            });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 2);
            const trace = fs.readFileSync(path.join(r.cwd, '.geekagent', 'trace.log'), 'utf8');
            assert.ok(!trace.includes('Lm93Kp'), `追踪里有密钥：${trace.split('\n').find((l) => l.includes('Lm93Kp'))}`);
            assert.match(trace, / llm ← data: .*记下了：\[REDACTED:MAIL_PASSWORD\]/, '回复流的那一行在追踪里，密码处是标记');
            // 请求体照样是合法 JSON，脱敏的地方换成了标记
            const sent = trace.split('\n').filter((l) => / llm → /.test(l)).map((l) => JSON.parse(l.replace(/^.*? llm → /, '')));
            assert.equal(sent.length, 2);
            assert.equal(sent[1].messages.find((m: any) => m.role === 'assistant').content, '记下了：[REDACTED:MAIL_PASSWORD]');
            assert.equal(sent[1].messages.find((m: any) => m.role === 'user').content, 'SMTP 密码是 [REDACTED:MAIL_PASSWORD]');
        });
    });
}
