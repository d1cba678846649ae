// Day 11 的技能：/skills、/use、/unuse；白名单决定发给模型的工具列表，执行时也强制检查（D7）；
// code-review 自带的 git_diff（它不运行文件夹选的程序：见 hostile-git.test.ts）。经真实入口、管道输入、假 OpenAI 服务验证；只在加固版上跑。
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent, toolResults } from '../helpers/agent.ts';
import { HARDENED_ONLY, REPO_ROOT } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.function.name).sort();
const systemPrompt = (body: any): string => body.messages[0].content;
// 临时目录之上不再找 .git：不管测试机的 /tmp 在不在某个仓库里，结果都一样
const gitCeiling = (cwd: string) => ({ GIT_CEILING_DIRECTORIES: path.dirname(cwd) });

/** 临时目录里建一个 git 仓库：提交一版 a.txt，再改掉它（留下未提交的改动）。 */
function gitRepo(): string {
    const dir = workdir({ 'a.txt': 'old line\nsame\n' });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd: dir, stdio: 'pipe' });
    git('init', '-q');
    git('add', 'a.txt');
    git('commit', '-q', '-m', 'init');
    fs.writeFileSync(path.join(dir, 'a.txt'), 'new line\nsame\n');
    return dir;
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: 技能`, () => {
        test('/skills 列出两个自带技能；/use 的用法与未知技能', async () => {
            const r = await runAgent(stage, { cwd: workdir(), input: ['/skills', '/use', '/use nope', '/use explore', '/skills'], env: gitCeiling(workdir()) });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /技能：code-review、explore/);
            assert.match(r.stdout, /可用技能（来自 skills\/，用 \/use 加载）：\n {2}code-review — .+\n {2}explore — .+\n/);
            assert.match(r.stdout, /用法：\/use <技能名>/);
            assert.match(r.stderr, /加载失败：未知技能：nope/);
            assert.match(r.stdout, /已加载技能 explore（自带：无；内置：ls, glob, read）/);
            assert.match(r.stdout, /\* explore — /);
        });

        test('/use explore：只发 ls / glob / read，计划词也不强制 todo_write；run_shell 被拒绝且不提示；/unuse 恢复', async () => {
            const cwd = workdir();
            const r = await runAgent(stage, { cwd, input: ['你好', '/use explore', '先看目录，然后删掉 build', '/unuse', '再来一次'], env: gitCeiling(cwd), replies: [
                text('你好。'),
                tools(
                    call('call_sh', 'run_shell', { command: 'touch pwned' }),
                    call('call_w', 'write', { path: 'x.txt', content: 'x' }),
                    call('call_ls', 'ls'),
                ),
                text('我只能看，不能删。'),
                text('全部工具都回来了。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(r.requests.length, 4);
            const [before, during, during2, afterUnuse] = r.requests.map((q) => q.body);
            const all = toolNames(before);
            assert.ok(all.includes('run_shell') && all.includes('todo_write'));
            for (const body of [during, during2]) {
                assert.deepEqual(toolNames(body), ['glob', 'ls', 'read']);
                // todo_write 不在可见工具里：不能强制它（C2）
                assert.equal(body.tool_choice, 'auto');
                assert.match(systemPrompt(body), /技能说明：\n你现在是只读的浏览向导。/);
            }
            const results = toolResults(during2);
            assert.equal(results.call_sh, '权限拒绝：技能 explore 启用期间不能使用工具 run_shell');
            assert.equal(results.call_w, '权限拒绝：技能 explore 启用期间不能使用工具 write');
            assert.ok(results.call_ls.includes('.geekagent/'), results.call_ls);
            assert.doesNotMatch(r.stdout, /\[y\/N\]/, '被技能拒绝的工具不该走到确认');
            assert.doesNotMatch(r.stdout, /即将执行命令/);
            assert.ok(!fs.existsSync(path.join(cwd, 'pwned')), '命令不该执行');
            assert.ok(!fs.existsSync(path.join(cwd, 'x.txt')));
            assert.match(r.stdout, /（技能已卸载，恢复默认行为）/);
            assert.deepEqual(toolNames(afterUnuse), all);
            assert.doesNotMatch(systemPrompt(afterUnuse), /技能说明/);
        });

        test('/use code-review：注册 git_diff（先问），在 git 仓库里返回改动；/unuse 后 git_diff 不存在', async () => {
            const cwd = gitRepo();
            const r = await runAgent(stage, { cwd, input: ['/use code-review', '审查一下改动', 'y', '/help', '/unuse', '再看一次'], env: gitCeiling(cwd), replies: [
                tools(call('call_diff', 'git_diff'), call('call_sh', 'run_shell', { command: 'touch pwned' })),
                text('结论：可以合并。'),
                tools(call('call_gone', 'git_diff')),
                text('好的。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stdout, /已加载技能 code-review（自带：git_diff；内置：read, glob）/);
            const [review, afterReview, afterUnuse] = r.requests.map((q) => q.body);
            assert.deepEqual(toolNames(review), ['git_diff', 'glob', 'read']);
            assert.deepEqual(review.tools.find((t: any) => t.function.name === 'git_diff').function.parameters.properties, {});
            assert.match(systemPrompt(review), /技能说明：\n你现在是代码审查者。/);
            // 第一次调用按 ask 策略确认
            assert.match(r.stdout, /工具 git_diff 请求执行\n\[y\/N\] y/);
            const results = toolResults(afterReview);
            assert.match(results.call_diff, /^1 个文件有改动：a\.txt\n/);
            assert.match(results.call_diff, /^-old line$/m);
            assert.match(results.call_diff, /^\+new line$/m);
            assert.equal(results.call_sh, '权限拒绝：技能 code-review 启用期间不能使用工具 run_shell');
            assert.ok(!fs.existsSync(path.join(cwd, 'pwned')));
            assert.match(r.stdout, / {2}git_diff {2}/, '启用期间 /help 列出 git_diff');
            assert.ok(!toolNames(afterUnuse).includes('git_diff'));
            assert.equal(toolResults(r.requests[3].body).call_gone, '未知工具：git_diff');
        });

        test('git_diff：不在 git 仓库里给出「git diff 失败」；没有改动时说明没有；拒绝确认就不执行', async () => {
            const outside = workdir();
            const notRepo = await runAgent(stage, { cwd: outside, input: ['/use code-review', '审查', 'yes'], env: gitCeiling(outside), replies: [
                tools(call('call_diff', 'git_diff')),
                text('不是仓库。'),
            ] });
            assert.equal(notRepo.code, 0, notRepo.stderr);
            assert.match(toolResults(notRepo.requests[1].body).call_diff, /^git diff 失败：\S/);

            const clean = gitRepo();
            execFileSync('git', ['checkout', '--', 'a.txt'], { cwd: clean });
            const r = await runAgent(stage, { cwd: clean, input: ['/use code-review', '审查', 'y', '再审查一次', 'n'], env: gitCeiling(clean), replies: [
                tools(call('call_clean', 'git_diff')),
                text('没有改动。'),
                tools(call('call_no', 'git_diff')),
                text('好吧。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(toolResults(r.requests[1].body).call_clean, '（没有未提交的改动）');
            assert.equal(toolResults(r.requests[3].body).call_no, '权限拒绝：不允许使用工具 git_diff');
        });

        test('权限文件里写了 git_diff: deny：以文件为准，不问直接拒绝', async () => {
            const cwd = gitRepo();
            fs.mkdirSync(path.join(cwd, '.geekagent'));
            fs.writeFileSync(path.join(cwd, '.geekagent', 'GeekAgent.json'), JSON.stringify({ root: '..', tools: { git_diff: 'deny' } }));
            const r = await runAgent(stage, { cwd, input: ['/use code-review', '审查'], env: gitCeiling(cwd), replies: [
                tools(call('call_diff', 'git_diff')),
                text('被拒绝了。'),
            ] });
            assert.equal(r.code, 0, r.stderr);
            assert.equal(toolResults(r.requests[1].body).call_diff, '权限拒绝：不允许使用工具 git_diff');
            assert.doesNotMatch(r.stdout, /\[y\/N\]/);
        });

        test('自己写的技能（阶段拷贝到临时目录）：坏 SKILL.md 启动时报告并跳过；tools.ts 导入失败就没有自带工具；' +
            '白名单里没有认识的工具名 = 全部工具；自带工具与已有工具重名时 /use 失败、什么都不变', async () => {
            const copy = workdir();
            fs.cpSync(path.join(REPO_ROOT, stage), copy, { recursive: true });
            // 仓库的 package.json 声明了 ESM（入口里有顶层 await）；拷贝出去的目录也要
            fs.writeFileSync(path.join(copy, 'package.json'), '{"type":"module"}\n');
            const skill = (name: string, files: Record<string, string>) => {
                fs.mkdirSync(path.join(copy, 'skills', name));
                for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(copy, 'skills', name, file), text);
            };
            const tool = (name: string) =>
                `{ name: '${name}', description: '${name}', parameters: { type: 'object', properties: {} }, run: () => '${name} ran' }`;
            skill('broken', { 'SKILL.md': 'description: 没有头部\n' });
            skill('badimport', { 'SKILL.md': '---\ndescription: 工具导入失败\n- ls\n---\n正文', 'tools.ts': 'throw new Error("boom");\n' });
            skill('foreign', { 'SKILL.md': '---\nname: other-name\ndescription: 为别的 Agent 写的\nallowed-tools: Read, Grep\n---\n外来技能正文' });
            skill('clash', { 'SKILL.md': '---\ndescription: 撞名\n- read\n---\n正文', 'tools.ts': `export const tools = [${tool('extra_tool')}, ${tool('read')}];\n` });

            const r = await runAgent(stage, {
                entry: path.join(copy, 'index.ts'),
                input: ['/skills', '/use badimport', '/use foreign', '一', '/use clash', '/use clash', '二', '/skills', '/unuse', '三'],
                replies: [text('a'), text('b'), text('c')],
            });
            assert.equal(r.code, 0, r.stderr);
            assert.match(r.stderr, /加载技能 broken 失败：SKILL\.md 必须以 --- 开头/);
            assert.doesNotMatch(r.stdout, / broken — /);
            assert.match(r.stdout, /已加载技能 badimport（自带：无；内置：ls）/);
            // 外来的工具名（Read、Grep）这里不存在：忽略它们，白名单为空 = 全部工具；技能名是文件夹名
            assert.match(r.stdout, /已加载技能 foreign（自带：无；内置：全部）/);
            const [first, second, third] = r.requests.map((q) => q.body);
            const all = toolNames(third);
            assert.deepEqual(toolNames(first), all);
            assert.match(systemPrompt(first), /技能说明：\n外来技能正文/);
            // 重名：/use 整体失败、什么都不变——extra_tool 没有留在注册表里，foreign 仍然启用，第二次 /use 报同样的错
            assert.equal(r.stderr.match(/加载失败：[^\n]*read/g)?.length, 2, r.stderr);
            assert.ok(!all.includes('extra_tool'), all.join(','));
            assert.deepEqual(toolNames(second), all);
            assert.match(systemPrompt(second), /技能说明：\n外来技能正文/);
            assert.match(r.stdout, /\* foreign — /);
            assert.doesNotMatch(systemPrompt(third), /技能说明/);
        });

        test('技能在 /reset、切换对话之后仍然启用，且不写进存档', async () => {
            const cwd = workdir();
            const r = await runAgent(stage, { cwd, input: ['/use explore', '/reset', '/new other', '看看', '/save'], env: gitCeiling(cwd), replies: [text('好。')] });
            assert.equal(r.code, 0, r.stderr);
            assert.deepEqual(toolNames(r.requests[0].body), ['glob', 'ls', 'read']);
            const saved = fs.readFileSync(path.join(cwd, '.geekagent', 'sessions.json'), 'utf8');
            assert.ok(!saved.includes('explore') && !saved.includes('技能'), saved);
        });
    });

    describe(`${stage}: SKILL.md 解析`, async () => {
        const { parseSkill } = await import(pathToFileURL(path.join(REPO_ROOT, stage, 'skills.ts')).href);

        test('头部：description 和 - 列表；正文去掉首尾空白；CRLF 和结束行的空白都可以', () => {
            const text = '---\r\ndescription: 看代码\r\ntools:\r\n- ls\r\n-  read \r\n--- \r\n\r\n正文第一行\r\n第二行\r\n';
            assert.deepEqual(parseSkill('demo', text), { name: 'demo', description: '看代码', whitelist: ['ls', 'read'], body: '正文第一行\n第二行' });
        });

        test('也认 allowed-tools: a, b 和 name:（name 被忽略，技能名是文件夹名）', () => {
            const text = '---\nname: other\ndescription: x\nallowed-tools: read, glob Read\n---\nbody';
            assert.deepEqual(parseSkill('folder', text), { name: 'folder', description: 'x', whitelist: ['read', 'glob', 'Read'], body: 'body' });
        });

        test('缺少开头或结尾的 --- 时报错', () => {
            assert.throws(() => parseSkill('x', 'description: x\n---\nbody'), /---/);
            assert.throws(() => parseSkill('x', '---\ndescription: x\nbody'), /---/);
        });
    });
}
