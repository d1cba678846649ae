// 第 8 天：权限表、目录隔离、密钥脱敏、撤销。
// 权限表是工作目录里的 .geekagent/GeekAgent.json：{"root": "..", "tools": {工具名或「前缀*」: "allow" | "ask" | "deny"}}，
// root 相对于 .geekagent/ 解析（".." 就是工作目录）。本仓库的 Agent 在配置放宽权限时先问一句信任，所以这里多给几行 y：
// 不问的 Agent 把多出来的 y 当成一句话，只会收到一句短回答。
import fs from 'node:fs';
import path from 'node:path';
import { call, tools, type FakeToolCall } from '../../fake-model/replies.ts';
import type { LearnerRun } from '../harness.ts';
import { mark, showMessages, toolResult } from '../look.ts';
import { byLastUser } from '../play.ts';
import { Miss, type Check, type Scenario } from '../types.ts';

const SECTION = 'day08/README.md#第-8-天权限目录隔离脱敏撤销与文件夹信任';
const ASK = '用一下工具';

const permissions = (tools: Record<string, string>) => JSON.stringify({ root: '..', tools });

/** 模型在「用一下工具」这一轮调用 calls；answers 是之后打的行。 */
const toolTurn = (calls: FakeToolCall[], answers: string[], extra: Partial<Scenario> = {}): Scenario =>
    ({ lines: [ASK, ...answers, '/exit'], model: { [ASK]: tools(...calls) }, ...extra });

/** 权限表 rules 下，模型调用 run_shell 建 ran.txt（前面多一行 y 给本仓库的文件夹信任问题）。 */
const shellUnder = (id: string, rules: Record<string, string>): Scenario => ({
    lines: ['y', ASK, 'y', 'y', '/exit'],
    model: { [ASK]: tools(call(id, 'run_shell', { command: 'echo ran > ran.txt' })) },
    files: { '.geekagent/GeekAgent.json': permissions(rules) },
    refuses: true,
});

const ran = (run: LearnerRun) => fs.existsSync(path.join(run.dir, 'ran.txt'));
const resultOf = (run: LearnerRun, id: string): string => toolResult(run, id) ?? `（没有这次调用的 tool 消息）\n${showMessages(run.requests.at(-1))}`;
const readOrNull = (file: string): string | null => {
    try {
        return fs.readFileSync(file, 'utf8');
    } catch {
        return null;
    }
};

// 根目录外面的文件：工作目录是 <临时>/work，文件在 <临时>/outside-secret.txt
const SECRET = mark('OUTSIDE');
const outsideFile = (run: LearnerRun) => path.join(run.place.base, 'outside-secret.txt');
const ALLOWED = mark('ALLOWED');
const KEY = `check-${mark('')}${mark('')}${mark('')}`;   // 不像任何已知格式的密钥：只有按 OPENAI_API_KEY 的值才认得出
const SHOWN = mark('SHOWN');
const OLD = `${mark('BEFORE')}\n`;

export const checks: Check[] = [
    {
        day: 8,
        name: 'deny 规则的工具不执行',
        hint: '每次执行工具前先查权限表：deny 就不执行，把「权限拒绝」作为工具结果交回，也不问用户',
        section: SECTION,
        scenario: shellUnder('call_deny_1', { run_shell: 'deny' }),
        expect(run) {
            if (ran(run) || toolResult(run, 'call_deny_1') === undefined) {
                throw new Miss('权限表 {"run_shell": "deny"}：模型调用 run_shell 时命令不执行（没有 ran.txt），模型收到一条 tool 消息',
                    `ran.txt ${ran(run) ? '有——命令执行了' : '没有'}；tool 消息：${resultOf(run, 'call_deny_1')}`);
            }
        },
    },
    {
        day: 8,
        name: 'deny 胜过更具体的 allow（"run_*": "deny" 和 "run_shell": "allow" 同时在）',
        hint: '先看有没有任何一条匹配的 deny（工具名、「前缀*」、「*」），有就拒绝；没有 deny 时才按最具体的规则决定',
        section: SECTION,
        optional: true,   // 原教程的权限表只认完整的工具名；「前缀*」规则是本仓库多做的
        scenario: shellUnder('call_deny_2', { 'run_*': 'deny', run_shell: 'allow' }),
        expect(run) {
            if (ran(run) || toolResult(run, 'call_deny_2') === undefined) {
                throw new Miss('权限表 {"run_*": "deny", "run_shell": "allow"}：run_shell 不执行（没有 ran.txt），模型收到一条 tool 消息',
                    `ran.txt ${ran(run) ? '有——命令执行了' : '没有'}；tool 消息：${resultOf(run, 'call_deny_2')}`);
            }
        },
    },
    {
        day: 8,
        name: 'allow 规则的工具不经询问就执行',
        hint: 'allow 的工具直接执行，不打印确认问题、不读下一行；ask（和没有规则的默认）才问',
        section: SECTION,
        scenario: {
            lines: ['y', ASK, 'n', 'n', '/exit'],
            model: { [ASK]: tools(call('call_allow_1', 'write', { path: 'allowed.txt', content: ALLOWED })) },
            files: { '.geekagent/GeekAgent.json': permissions({ write: 'allow' }) },
            refuses: true,
        },
        expect(run) {
            const got = readOrNull(path.join(run.dir, 'allowed.txt'));
            if (got !== ALLOWED) {
                throw new Miss('权限表 {"write": "allow"}：模型调用 write 后文件直接写好（之后的回答是 n 也一样）', `allowed.txt ${got === null ? '不存在' : `内容：${got}`}；tool 消息：${resultOf(run, 'call_allow_1')}`);
            }
        },
    },
    {
        day: 8,
        name: 'read 读不到根目录之外的文件（../ 和绝对路径）',
        hint: '文件工具的路径先 path.resolve(root, p)，再用 path.relative(root, 结果) 判断：以 .. 开头或是绝对路径就是越界，抛错、不读',
        section: SECTION,
        scenario: {
            lines: [ASK, 'y', 'y', '/exit'],
            outside: { 'outside-secret.txt': SECRET },
            refuses: true,
            model: (place) => byLastUser({
                [ASK]: tools(
                    call('call_out_rel', 'read', { path: '../outside-secret.txt' }),
                    call('call_out_abs', 'read', { path: path.join(place.base, 'outside-secret.txt') }),
                ),
            }),
        },
        expect(run) {
            const rel = toolResult(run, 'call_out_rel');
            const abs = toolResult(run, 'call_out_abs');
            if (rel === undefined || abs === undefined || rel.includes(SECRET) || abs.includes(SECRET)) {
                throw new Miss(`read "../outside-secret.txt" 和 read "${outsideFile(run)}" 都被拒绝：两条 tool 消息里都没有文件内容「${SECRET}」`,
                    `../outside-secret.txt → ${resultOf(run, 'call_out_rel')}\n绝对路径 → ${resultOf(run, 'call_out_abs')}`);
            }
        },
    },
    {
        day: 8,
        name: 'write 写不到根目录之外',
        hint: 'write、patch 在确认之前先检查路径：越界就直接拒绝，答了 y 也不写',
        section: SECTION,
        scenario: toolTurn([call('call_out_write', 'write', { path: '../escaped.txt', content: 'x' })], ['y', 'y'], { refuses: true }),
        expect(run) {
            const escaped = fs.existsSync(path.join(run.place.base, 'escaped.txt'));
            if (escaped || toolResult(run, 'call_out_write') === undefined) {
                throw new Miss('write "../escaped.txt"（回答 y）：工作目录外面没有多出 escaped.txt，模型收到一条 tool 消息',
                    `${escaped ? '文件写出去了' : '没有写出去'}；tool 消息：${resultOf(run, 'call_out_write')}`);
            }
        },
    },
    {
        day: 8,
        name: '密钥不会发给模型：工具结果里 OPENAI_API_KEY 的值被换掉',
        hint: '工具结果交回模型之前统一脱敏：把环境变量里名字像密钥的（含 KEY、TOKEN、SECRET、PASSWORD）的值换成 [REDACTED:变量名]',
        section: SECTION,
        scenario: toolTurn([
            call('call_key_read', 'read', { path: 'settings.txt' }),
            call('call_key_shell', 'run_shell', { command: `echo ${SHOWN}; echo $OPENAI_API_KEY` }),
        ], ['y', 'y'], { files: { 'settings.txt': `${SHOWN}\napi_key=${KEY}\n` }, env: { OPENAI_API_KEY: KEY } }),
        expect(run) {
            const read = toolResult(run, 'call_key_read');
            const shell = toolResult(run, 'call_key_shell');
            const leaked = run.requests.some((body) => JSON.stringify(body).includes(KEY));
            if (leaked || !read?.includes(SHOWN) || !shell?.includes(SHOWN)) {
                throw new Miss('read 一个含密钥的文件、run_shell echo $OPENAI_API_KEY（回答 y）：两个结果都回给了模型，任何请求里都没有 OPENAI_API_KEY 的值',
                    `${leaked ? '密钥原样发给了模型。' : ''}read → ${resultOf(run, 'call_key_read')}\nrun_shell → ${resultOf(run, 'call_key_shell')}`);
            }
        },
    },
    {
        day: 8,
        name: '/undo 把上一次确认过的写入恢复原样',
        hint: '确认写入之后、真正写之前，把旧内容（文件原来不存在就记 null）存进 .geekagent/undo.json；/undo 写回旧内容（null 就删掉文件）',
        section: SECTION,
        scenario: toolTurn([call('call_undo_1', 'write', { path: 'notes.txt', content: '改过了\n' })], ['y', '/undo'], { files: { 'notes.txt': OLD } }),
        expect(run) {
            const got = readOrNull(path.join(run.dir, 'notes.txt'));
            // 还要有这次 write 的结果：什么都没发生（比如一启动就崩溃）时文件没变不算通过
            if (got !== OLD || toolResult(run, 'call_undo_1') === undefined) {
                throw new Miss(`write notes.txt（回答 y）之后 /undo：这次 write 的结果回给了模型，notes.txt 回到原来的「${OLD.trim()}」`, `notes.txt：${got === null ? '（不存在）' : JSON.stringify(got)}；tool 消息：${resultOf(run, 'call_undo_1')}`);
            }
        },
    },
];
