// Day 4 的模块单元测试：glob 匹配器、diff 与 patch 规则、shell 执行、read 分段。只在加固版上跑。
// 加固版的模块按文件路径动态导入；registerShellTools / registerFileTools 把工具注册进它自己的 tools.ts 实例。
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { HARDENED_ONLY, REPO_ROOT } from '../helpers/run-stage.ts';
import { sleepCommand, waitUntil } from '../helpers/wait.ts';
import { workdir } from '../helpers/workdir.ts';


function writeTree(root: string, files: string[]): void {
    for (const name of files) {
        fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
        fs.writeFileSync(path.join(root, name), name);
    }
}

for (const stage of HARDENED_ONLY) {
    const load = (file: string) => import(pathToFileURL(path.join(REPO_ROOT, stage, file)).href);

    describe(`${stage}: glob 匹配器`, async () => {
        const { matchSegment, glob, GLOB_LIMIT } = await load('glob.ts');

        test('单段通配符：* ? [abc] [a-z] [!a] {a,b}，其余按字面、区分大小写', () => {
            const cases: [string, string[], string[]][] = [
                ['*.ts', ['a.ts', 'main.ts', 'x.y.ts'], ['a.tsx', 'a.js', 'ts']],
                ['?.md', ['a.md', 'Z.md'], ['ab.md', '.md']],
                ['[abc].txt', ['a.txt', 'c.txt'], ['d.txt', 'ab.txt']],
                ['file[0-9]', ['file0', 'file7'], ['filea', 'file10']],
                ['[!a]x', ['bx', 'zx'], ['ax', 'x']],
                ['{foo,bar}.js', ['foo.js', 'bar.js'], ['baz.js', 'foobar.js', '{foo,bar}.js']],
                ['src.{js,ts}', ['src.js', 'src.ts'], ['src.jsx']],
                ['a+b(1).txt', ['a+b(1).txt'], ['aab(1).txt', 'a+b1.txt']],
                ['a.b', ['a.b'], ['axb']],
                ['*.TS', ['A.TS'], ['a.ts']],
                ['[abc', ['[abc'], ['a']],
                ['{a,b', ['{a,b'], ['a']],
            ];
            for (const [pattern, yes, no] of cases) {
                for (const name of yes) assert.ok(matchSegment(pattern, name), `${pattern} 应当匹配 ${name}`);
                for (const name of no) assert.ok(!matchSegment(pattern, name), `${pattern} 不应匹配 ${name}`);
            }
        });

        test('点规则：通配符不匹配开头的 .，除非模式段本身以 . 开头', () => {
            assert.equal(matchSegment('*', '.env'), false);
            assert.equal(matchSegment('*.ts', '.hidden.ts'), false);
            assert.equal(matchSegment('?env', '.env'), false);
            assert.equal(matchSegment('.*', '.env'), true);
            assert.equal(matchSegment('.env', '.env'), true);
            assert.equal(matchSegment('*', 'a.env'), true);
        });

        describe('遍历目录', () => {
            const root = workdir();
            writeTree(root, [
                'main.ts', 'notes.md', '.env',
                'src/main.ts', 'src/readme.md', 'src/lib/util.ts', 'src/lib/deep/x.ts',
                'src/.cache/c.ts', '.hidden/secret.ts',
                'node_modules/pkg/index.ts', 'src/node_modules/y.ts',
            ]);
            fs.symlinkSync(path.join(root, 'src'), path.join(root, 'link'));
            const paths = (pattern: string, base = root) => glob(pattern, base).paths;

            test('** 匹配零层或多层，不进点目录、node_modules，也不跟随符号链接', () => {
                assert.deepEqual(paths('**/*.ts'), ['main.ts', 'src/lib/deep/x.ts', 'src/lib/util.ts', 'src/main.ts']);
                assert.deepEqual(paths('src/**/*.ts'), ['src/lib/deep/x.ts', 'src/lib/util.ts', 'src/main.ts']);
                assert.deepEqual(paths('**/lib/*.ts'), ['src/lib/util.ts']);
                assert.deepEqual(paths('**/{main,util}.ts'), ['main.ts', 'src/lib/util.ts', 'src/main.ts']);
            });

            test('目录以 / 结尾；* 不匹配点文件和 node_modules；结果排好序', () => {
                assert.deepEqual(paths('*'), ['link', 'main.ts', 'notes.md', 'src/']);
                assert.deepEqual(paths('src/*'), ['src/lib/', 'src/main.ts', 'src/readme.md']);
                assert.deepEqual(paths('.*'), ['.env', '.hidden/']);
                assert.deepEqual(paths('.hidden/*.ts'), ['.hidden/secret.ts']);
                assert.deepEqual(paths('node_modules/*'), []);
                assert.deepEqual(paths('nothing/*.ts'), []);
            });

            test('反斜杠当作 /；开头的 ./ 不影响结果；.. 走到上一级', () => {
                assert.deepEqual(paths('src\\lib\\*.ts'), ['src/lib/util.ts']);
                assert.deepEqual(paths('./src/*.md'), ['src/readme.md']);
                assert.deepEqual(paths('../*.md', path.join(root, 'src')), ['../notes.md']);
            });

            test('绝对路径模式返回绝对路径', () => {
                assert.deepEqual(paths(`${root}/src/*.md`, '/nonexistent'), [`${root}/src/readme.md`]);
            });

            test(`超过 ${GLOB_LIMIT} 个结果就停止，truncated 为 true`, () => {
                assert.equal(GLOB_LIMIT, 200);
                const many = workdir();
                writeTree(many, Array.from({ length: 250 }, (_, i) => `d/f${String(i).padStart(3, '0')}.txt`));
                const all = glob('d/*.txt', many);
                assert.equal(all.paths.length, 200);
                assert.equal(all.truncated, true);
                assert.deepEqual(all.paths, [...all.paths].sort());
                const deep = glob('**/*.txt', many);
                assert.equal(deep.paths.length, 200);
                assert.equal(deep.truncated, true);
                const few = glob('d/f1*.txt', many);
                assert.equal(few.paths.length, 100);
                assert.equal(few.truncated, false);
            });
        });
    });

    describe(`${stage}: diff 与 patch 规则`, async () => {
        const { lines, diff, applyHunks } = await load('diff.ts');
        const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

        test('lines：CRLF 变 LF，去掉一个结尾换行，空文本没有行', () => {
            assert.deepEqual(lines(''), []);
            assert.deepEqual(lines('a\r\nb\r\n'), ['a', 'b']);
            assert.deepEqual(lines('a\n\n'), ['a', '']);
            assert.deepEqual(lines('a'), ['a']);
        });

        test('去掉相同的开头和结尾，前后各留 3 行上下文', () => {
            const before = numbered(10);
            assert.equal(diff(before, before.replace('line 5\n', 'five\n')), [
                ' line 2', ' line 3', ' line 4', '-line 5', '+five', ' line 6', ' line 7', ' line 8',
            ].join('\n'));
            assert.equal(diff('a\nb\nc\n', 'a\nc\n'), ' a\n-b\n c');
            assert.equal(diff('a\nb\n', 'x\na\nb\n'), '+x\n a\n b');
            // 开头和结尾重叠时 p + s 不超过较短的一边
            assert.equal(diff('a\na\n', 'a\n'), ' a\n-a');
            // 只差行尾（CRLF → LF）：按行比较没有变化，只剩上下文行
            assert.equal(diff('a\r\nb\r\n', 'a\nb\n'), ' a\n b');
        });

        test('两处修改之间相同的行原样保留（逐行比较）；相距太远时中间只留前后各 3 行', () => {
            const before = numbered(6);
            const after = before.replace('line 2', 'two').replace('line 5', 'five');
            assert.equal(diff(before, after), [
                ' line 1', '-line 2', '+two', ' line 3', ' line 4', '-line 5', '+five', ' line 6',
            ].join('\n'));
            const far = diff(numbered(300), numbered(300).replace('line 50\n', 'fifty\n').replace('line 250\n', 'x\n'));
            assert.deepEqual(far.split('\n').filter((l: string) => /^[-+…]/.test(l)), ['-line 50', '+fifty', '…（中间 193 行没有改动）', '-line 250', '+x']);
            // 删加的行数最少：插入和删除交错时也不把整段算成改动
            assert.equal(diff('a\nb\nc\nd\n', 'x\nb\ny\nd\nz\n'), '-a\n+x\n b\n-c\n+y\n d\n+z');
        });

        test('新文件全是 +；diff 不截断（确认提示太长时由 askPaged 分页）', () => {
            assert.equal(diff('', 'a\nb\n'), '+a\n+b');
            const out: string[] = diff('', numbered(150)).split('\n');
            assert.equal(out.length, 150);
            assert.equal(out[149], '+line 150');
        });

        test('applyHunks：依次应用到工作副本上，替换按字面（$& 不被解释）', () => {
            assert.equal(applyHunks('abc', [{ old: 'a', new: 'X' }, { old: 'Xb', new: 'Y' }]), 'Yc');
            assert.equal(applyHunks('x = 1;', [{ old: '1', new: "$& $1 $$ $'" }]), "x = $& $1 $$ $';");
            assert.equal(applyHunks('a\nb\n', [{ old: 'b\n', new: '' }]), 'a\n');
        });

        test('applyHunks 的错误：空 hunks、空 old、找不到、多处匹配、结果和原文相同', () => {
            assert.throws(() => applyHunks('a', []), /hunks 为空/);
            assert.throws(() => applyHunks('a', [{ old: '', new: 'x' }]), /空的 old/);
            assert.throws(() => applyHunks('abc', [{ old: 'zzz', new: 'x' }]), /没有找到片段：zzz/);
            const long = 'q'.repeat(100);
            assert.throws(() => applyHunks('abc', [{ old: long, new: 'x' }]), (e: Error) => e.message.includes('q'.repeat(80)) && !e.message.includes('q'.repeat(81)));
            assert.throws(() => applyHunks('ab ab', [{ old: 'ab', new: 'x' }]), /多处.*ab/);
            assert.throws(() => applyHunks('aaa', [{ old: 'aa', new: 'x' }]), /多处/, '重叠的匹配也算多处');
            assert.throws(() => applyHunks('a', [{ old: 'a', new: 'a' }]), /相同/);
            assert.throws(() => applyHunks('a', [{ old: 'a', new: 'b' }, { old: 'b', new: 'a' }]), /相同/);
            // 精确匹配：空白和行尾都算
            assert.throws(() => applyHunks('a  b', [{ old: 'a b', new: 'x' }]), /没有找到片段/);
            assert.throws(() => applyHunks('a\r\nb', [{ old: 'a\nb', new: 'x' }]), /没有找到片段/);
        });
    });

    describe(`${stage}: shell 与工具执行`, async () => {
        const cwd = process.cwd();
        const work = workdir();
        const tools = await load('tools.ts');
        const { runShell, registerShellTools } = await load('shell.ts');
        const { registerFileTools } = await load('files.ts');
        registerShellTools();
        registerFileTools();
        const exec = (name: string, args: object) => tools.execTool(name, JSON.stringify(args));
        let answer = false;

        before(async () => {
            process.chdir(work);
            // Day 4 用 setConfirmFn 换确认函数；Day 8 起确认交给权限模块，权限文件自动建在临时目录里
            if (tools.setConfirmFn) tools.setConfirmFn(async () => answer);
            else {
                const permissions = await load('permissions.ts');
                permissions.setupPermissions(permissions.loadPermissions(), async () => answer);
            }
        });
        after(() => process.chdir(cwd));

        test('runShell：stdout 和 stderr 用换行连接；没有输出、非零退出码都有说明', async () => {
            assert.equal(await runShell('echo out; echo err >&2'), 'out\nerr');
            assert.equal(await runShell('true'), '（无输出）');
            assert.equal(await runShell('echo oops >&2; exit 3'), '命令失败（退出码 3）\noops');
            // 子进程的 stdin 不接 Agent 的输入：cat 立刻读到结尾
            assert.equal(await runShell('cat'), '（无输出）');
        });

        test('runShell 超时：返回超时说明，整个进程组（含后台子进程）被杀掉', async () => {
            // 前台、后台两条命令自己都不会结束：runShell 能返回，说明超时起了作用；它们都不在了，说明整个进程组被杀掉
            const background = sleepCommand();
            const foreground = sleepCommand();
            const result = await runShell(`(${background.command}; touch survived) & ${foreground.command}`, 300);
            assert.match(result, /^命令失败（超时：超过 0\.3 秒）/);
            await waitUntil('前台命令被杀掉', () => !foreground.running());
            await waitUntil('后台子进程被杀掉', () => !background.running());
            assert.ok(!fs.existsSync(path.join(work, 'survived')), '后台子进程没有被杀掉');
        });

        test('runShell 输出超过 8000 字节：停下并报告，保留已收到的部分', async () => {
            const result: string = await runShell("head -c 20000 /dev/zero | tr '\\0' a");
            // Day 8 起超限的那一块整块留下（不在密钥中间切开），所以至少 8000 字节、至多全部
            assert.match(result, /^命令失败（输出超过 8000 字节）\na{8000,20000}$/);
        });

        test('run_shell 工具：同意后执行并截断到 2000 字符；拒绝不执行；缺参数有说明', async () => {
            assert.equal(tools.truncateOutput('abc', 5), 'abc');
            assert.equal(tools.truncateOutput('abcdef', 5), 'abcde\n…(已截断，共 6 个字符)');
            answer = true;
            const long = await exec('run_shell', { command: "head -c 3000 /dev/zero | tr '\\0' a" });
            assert.equal(long, 'a'.repeat(2000) + '\n…(已截断，共 3000 个字符)');
            answer = false;
            assert.match(await exec('run_shell', { command: 'touch declined' }), /取消|拒绝/);
            assert.ok(!fs.existsSync(path.join(work, 'declined')));
            assert.match(await exec('run_shell', {}), /缺少参数：command/);
        });

        test('read 分段：每次 2000 字符，提示下一个 offset；一页都在同一行里时说一声；offset 取整、负数当 0、越过末尾有说明', async () => {
            const text = Array.from({ length: 4500 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
            fs.writeFileSync(path.join(work, 'big.txt'), text);
            fs.writeFileSync(path.join(work, 'empty.txt'), '');
            const longLine = '这一页都在同一行里，这一行比一页还长，到页末还没完；';
            assert.equal(await exec('read', { path: 'big.txt' }),
                `（文件共 4500 个字符，本次读取 0-2000）\n${text.slice(0, 2000)}\n${longLine}还有更多内容；用 offset=2000 继续调用 read`);
            assert.equal(await exec('read', { path: 'big.txt', offset: 2000 }),
                `（文件共 4500 个字符，本次读取 2000-4000）\n${text.slice(2000, 4000)}\n${longLine}还有更多内容；用 offset=4000 继续调用 read`);
            const lines = `${'x'.repeat(1500)}\n${text}`;   // 页里有换行：不说
            fs.writeFileSync(path.join(work, 'lines.txt'), lines);
            assert.equal(await exec('read', { path: 'lines.txt' }),
                `（文件共 6001 个字符，本次读取 0-2000）\n${lines.slice(0, 2000)}\n还有更多内容；用 offset=2000 继续调用 read`);
            assert.equal(await exec('read', { path: 'big.txt', offset: 4000 }), `（文件共 4500 个字符，本次读取 4000-4500）\n${text.slice(4000)}`);
            assert.equal(await exec('read', { path: 'big.txt', offset: 4100.9 }), `（文件共 4500 个字符，本次读取 4100-4500）\n${text.slice(4100)}`);
            assert.equal(await exec('read', { path: 'big.txt', offset: -5 }), await exec('read', { path: 'big.txt' }));
            assert.equal(await exec('read', { path: 'big.txt', offset: 4500 }), 'offset 已经超出文件末尾');
            assert.equal(await exec('read', { path: 'empty.txt' }), '（文件共 0 个字符，本次读取 0-0）\n');
            assert.match(await exec('read', { path: 'missing.txt' }), /^读取文件失败：/);
            assert.match(await exec('read', {}), /缺少参数：path/);
        });

        test('ls：目录在前、各自排序，目录以 / 结尾，含点文件；空目录和错误有说明', async () => {
            writeTree(work, ['list/b.txt', 'list/.dot', 'list/A.txt', 'list/zdir/x', 'list/adir/x']);
            fs.mkdirSync(path.join(work, 'list/empty'));
            assert.equal(await exec('ls', { path: 'list' }), '共 6 项：\nadir/\nempty/\nzdir/\n.dot\nA.txt\nb.txt');
            assert.equal(await exec('ls', { path: 'list/empty' }), '（空目录）');
            assert.match(await exec('ls', { path: 'nope' }), /^打开目录失败：/);
        });

        test('glob 工具：列出匹配、没有匹配、超过上限时提示缩小模式', async () => {
            writeTree(work, ['g/a.ts', 'g/b.ts', ...Array.from({ length: 205 }, (_, i) => `many/f${i}.log`)]);
            assert.equal(await exec('glob', { pattern: 'g/*.ts' }), '匹配到 2 个文件：\ng/a.ts\ng/b.ts');
            assert.equal(await exec('glob', { pattern: '**/*.nothing' }), '（没有匹配的文件）');
            const capped: string = await exec('glob', { pattern: 'many/*.log' });
            assert.match(capped, /^匹配到 200 个文件：\n/);
            assert.match(capped, /200.*缩小/);
            assert.equal(capped.split('\n').filter((l) => l.startsWith('many/')).length, 200);
        });
    });
}
