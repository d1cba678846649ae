// 第 4 天：文件工具与工具注册表。
import fs from 'node:fs';
import path from 'node:path';
import { call, tools, type FakeToolCall } from '../../fake-model/replies.ts';
import type { LearnerRun } from '../harness.ts';
import { mark, requestFor, showMessages, toolNames, toolResult, toolSchema } from '../look.ts';
import { Miss, type Check, type Scenario } from '../types.ts';

const SECTION = 'day04/README.md#第-4-天文件工具与工具注册表';

/** 模型在一轮里调用这些工具；answers 是之后打的行（确认的回答等）。 */
const fileTools = (calls: FakeToolCall[], files: Record<string, string>, answers: string[] = []): Scenario => ({
    lines: ['用一下文件工具', ...answers, '/exit'],
    files,
    model: { 用一下文件工具: tools(...calls) },
});

const readFile = (run: LearnerRun, name: string): string | null => {
    try {
        return fs.readFileSync(path.join(run.dir, name), 'utf8');
    } catch {
        return null;
    }
};
const resultOf = (run: LearnerRun, id: string): string => toolResult(run, id) ?? `（没有这次调用的 tool 消息）\n${showMessages(run.requests.at(-1))}`;

const A = mark('FILEA');
const B = mark('FILEB');
const WRITTEN = mark('WRITTEN');
const READ = fileTools([call('call_read_1', 'read', { path: 'docs/b.txt' })], { 'a.txt': A, 'docs/b.txt': B });
const TWICE = '- 买牛奶\n- 买牛奶\n';

export const checks: Check[] = [
    {
        day: 4,
        name: '文件工具以 schema 交给模型：ls、read、glob、write、patch',
        hint: '注册表里每个工具一项 { name, description, parameters, run }，请求的 tools 由它生成：read {path}、write {path, content}、ls {path}、glob {pattern}、patch {path, hunks: [{old, new}]}',
        section: SECTION,
        scenario: READ,
        expect(run) {
            const first = requestFor(run, '用一下文件工具');
            const want: Record<string, string[]> = { ls: ['path'], read: ['path'], glob: ['pattern'], write: ['path', 'content'], patch: ['path', 'hunks'] };
            const missing = Object.entries(want).filter(([name, params]) => params.some((p) => !toolSchema(first, name)?.parameters?.properties?.[p]));
            if (missing.length) {
                throw new Miss('请求的 tools 里有 ls {path}、read {path}、glob {pattern}、write {path, content}、patch {path, hunks}',
                    `tools：${JSON.stringify(toolNames(first))}；不对的：${missing.map(([name]) => `${name} ${JSON.stringify(toolSchema(first, name)?.parameters ?? null)}`).join('；')}`);
            }
        },
    },
    {
        day: 4,
        name: 'read 读出参数 path 指的那个文件',
        hint: 'read 按 args.path（相对当前目录）读文件，内容作为工具结果交回',
        section: SECTION,
        scenario: READ,
        expect(run) {
            const result = resultOf(run, 'call_read_1');
            if (!result.includes(B) || result.includes(A)) throw new Miss(`read {"path":"docs/b.txt"} 的结果里有它的内容「${B}」`, result);
        },
    },
    {
        day: 4,
        name: 'write 答 y 后写入文件，没有的父目录自动建好',
        hint: 'write 先确认，同意后 fs.mkdirSync(path.dirname(file), { recursive: true }) 再 writeFileSync 写入完整内容',
        section: SECTION,
        scenario: fileTools([call('call_write_1', 'write', { path: 'new/dir/out.txt', content: WRITTEN })], {}, ['y']),
        expect(run) {
            const got = readFile(run, 'new/dir/out.txt');
            if (got !== WRITTEN) throw new Miss(`回答 y 后 new/dir/out.txt 的内容是「${WRITTEN}」`, `文件${got === null ? '不存在' : `内容：${got}`}；tool 消息：${resultOf(run, 'call_write_1')}`);
        },
    },
    {
        day: 4,
        name: 'write 没答 y 时不写',
        hint: '写入之前先显示要写什么并确认（和 run_shell 一样读下一行），只有 y 才写',
        section: SECTION,
        scenario: fileTools([call('call_write_no', 'write', { path: 'keep.txt', content: '新内容' })], { 'keep.txt': '旧内容' }, ['n']),
        expect(run) {
            const got = readFile(run, 'keep.txt');
            // 还要有这次调用的结果：模型得知没写。什么都没发生（比如一启动就崩溃）时文件没变不算通过
            if (got !== '旧内容' || toolResult(run, 'call_write_no') === undefined) {
                throw new Miss('回答 n 后 keep.txt 仍是「旧内容」，这次 write 的结果回给了模型', `keep.txt：${got ?? '（不存在）'}；tool 消息：${resultOf(run, 'call_write_no')}`);
            }
        },
    },
    {
        day: 4,
        name: 'ls 列出目录里的文件和子目录',
        hint: 'ls 用 fs.readdirSync(args.path ?? ".") 列出名字（目录可以加 / 区分），作为结果交回',
        section: SECTION,
        scenario: fileTools([call('call_ls_1', 'ls', { path: 'proj' })], { 'proj/readme-x.md': '#', 'proj/srcdir/main.ts': '' }),
        expect(run) {
            const result = resultOf(run, 'call_ls_1');
            if (!result.includes('readme-x.md') || !result.includes('srcdir')) throw new Miss('ls {"path":"proj"} 的结果里有 readme-x.md 和 srcdir', result);
        },
    },
    {
        day: 4,
        name: 'glob 按通配符找到文件（** 跨目录），不进 node_modules',
        hint: 'glob 从当前目录递归遍历，把相对路径和模式比较：** 匹配任意层目录，* 不跨 /；跳过 node_modules 和点目录',
        section: SECTION,
        scenario: fileTools([call('call_glob_1', 'glob', { pattern: '**/*.ts' })],
            { 'src/alpha.ts': '', 'src/deep/beta.ts': '', 'node_modules/pkg/gamma.ts': '', 'notes.md': '' }),
        expect(run) {
            const result = resultOf(run, 'call_glob_1');
            if (!result.includes('src/alpha.ts') || !result.includes('src/deep/beta.ts') || result.includes('gamma') || result.includes('notes.md')) {
                throw new Miss('glob {"pattern":"**/*.ts"} 的结果有 src/alpha.ts、src/deep/beta.ts，没有 node_modules/pkg/gamma.ts 和 notes.md', result);
            }
        },
    },
    {
        day: 4,
        name: 'patch 把 old 片段换成 new（答 y 后）',
        hint: 'patch 读出文件，把每个 hunk 的 old 换成 new（用 indexOf + slice 拼，不用 String.replace），确认后写回',
        section: SECTION,
        scenario: fileTools([call('call_patch_1', 'patch', { path: 'todo.md', hunks: [{ old: '买牛奶', new: '买牛奶和面包 $&' }] })],
            { 'todo.md': '- 买牛奶\n- 写周报\n' }, ['y']),
        expect(run) {
            const got = readFile(run, 'todo.md');
            if (got !== '- 买牛奶和面包 $&\n- 写周报\n') throw new Miss('todo.md 变成「- 买牛奶和面包 $&\\n- 写周报\\n」', `todo.md：${JSON.stringify(got)}；tool 消息：${resultOf(run, 'call_patch_1')}`);
        },
    },
    {
        day: 4,
        name: 'patch 的 old 找不到或出现不止一次时不改文件，原因告诉模型',
        hint: '每个 old 必须在文件里恰好出现一次：数一下出现几次，不是 1 就不写，把原因作为工具结果交回，模型会换个 old 再试',
        section: SECTION,
        scenario: fileTools([
            call('call_patch_none', 'patch', { path: 'list.md', hunks: [{ old: '买咖啡', new: 'x' }] }),
            call('call_patch_twice', 'patch', { path: 'list.md', hunks: [{ old: '买牛奶', new: '买面包' }] }),
        ], { 'list.md': TWICE }, ['y', 'y']),
        expect(run) {
            const got = readFile(run, 'list.md');
            if (got !== TWICE || toolResult(run, 'call_patch_none') === undefined || toolResult(run, 'call_patch_twice') === undefined) {
                throw new Miss('old「买咖啡」不存在、old「买牛奶」出现两次：list.md 一个字都不改，两次调用都有 tool 消息',
                    `list.md：${JSON.stringify(got)}；tool 消息：${resultOf(run, 'call_patch_none')} / ${resultOf(run, 'call_patch_twice')}`);
            }
        },
    },
];
