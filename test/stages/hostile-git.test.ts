// git_diff 不运行文件夹选的程序：仓库或子模块的配置写了程序（过滤器、textconv、外部 diff、fsmonitor、分页器、钩子）就不运行，
// 说出是哪个文件的哪一项；子模块只显示它指向的提交；环境里的 GIT_*、系统和全局配置都不用；不去远端取对象。
// 每个程序都在文件夹外留下一个记号文件：测试看它有没有出现。经真实入口、管道输入、假模型验证；只在加固版上跑。
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { call, text, tools } from '../../scripts/fake-model/replies.ts';
import { runAgent } from '../helpers/agent.ts';
import { HARDENED_ONLY } from '../helpers/run-stage.ts';
import { workdir } from '../helpers/workdir.ts';

const REFUSED = 'git_diff 没有运行：文件夹里的 git 配置会让 git 运行程序，文件夹自带的配置不能让 Agent 运行程序：\n';
const HINT = '是你自己配的，就在终端里自己运行 git diff HEAD；要让 git_diff 能用，先删掉这几项（git config --unset <名字>，钩子删掉文件）';

// 搭测试仓库用的 git：不读这台机器的系统和全局配置，本地路径的子模块要 protocol.file.allow
const BUILD_ENV = { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', [
    '-c', 'user.name=test', '-c', 'user.email=test@example.com', '-c', 'protocol.file.allow=always', '-c', 'init.defaultBranch=main', ...args,
], { cwd, stdio: 'pipe', env: BUILD_ENV, encoding: 'utf8' });

/** 一个临时目录：evil.sh 每次运行都往 MARKER 里记一行（当过滤器、textconv 时原样输出）；repo(name) 在里面建一个有一次提交的仓库。 */
function lab() {
    const base = workdir();
    const evil = path.join(base, 'evil.sh');
    fs.writeFileSync(evil, '#!/bin/sh\necho "$0 $*" >> "$(dirname "$0")/MARKER"\ncat\n', { mode: 0o755 });
    const repo = (name: string, files: Record<string, string>) => {
        const dir = path.join(base, name);
        fs.mkdirSync(dir);
        for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), content);
        git(dir, 'init', '-q');
        git(dir, 'add', '.');
        git(dir, 'commit', '-q', '-m', 'init');
        return dir;
    };
    // 运行过的程序记下的行；touch 出来的空文件也算运行过
    const marker = () => fs.existsSync(path.join(base, 'MARKER')) ? fs.readFileSync(path.join(base, 'MARKER'), 'utf8') || '（空的 MARKER）' : '';
    return { base, evil, repo, marker };
}

/** 超级项目 top（diff.submodule=diff）带一个子模块 sub（里面的 f.txt 改过，和原来一样长：git 查它改没改就得读内容）。 */
function withSubmodule() {
    const l = lab();
    l.repo('subsrc', { 'f.txt': 'a\n', '.gitattributes': '*.txt filter=x diff=y\n' });
    const top = l.repo('top', { 'x.txt': 'x\n' });
    git(top, 'submodule', 'add', '-q', '../subsrc', 'sub');
    git(top, 'commit', '-q', '-m', 'sub');
    git(top, 'config', 'diff.submodule', 'diff');
    const sub = path.join(top, 'sub');
    fs.writeFileSync(path.join(sub, 'f.txt'), 'b\n');
    return { ...l, top, sub };
}

/** 在 cwd 里启用 code-review、让模型调用一次 git_diff（答 y），返回工具结果。 */
async function gitDiff(stage: string, cwd: string, base: string, env: Record<string, string> = {}): Promise<string> {
    const r = await runAgent(stage, { cwd, input: ['/use code-review', '审查', 'y'], env: { GIT_CEILING_DIRECTORIES: base, ...env }, replies: [
        tools(call('d', 'git_diff')),
        text('看完了。'),
    ] });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /工具 git_diff 请求执行\n\[y\/N\] y/);
    return r.results.d;
}

for (const stage of HARDENED_ONLY) {
    describe(`${stage}: git_diff 不运行文件夹选的程序`, () => {
        test('超级项目 diff.submodule=diff，子模块自己的配置有 clean 过滤器：不运行，说出是子模块配置的哪一项', async () => {
            const { top, sub, base, evil, marker } = withSubmodule();
            git(sub, 'config', 'filter.x.clean', evil);
            const result = await gitDiff(stage, top, base);
            assert.equal(marker(), '', '子模块的过滤器不该运行');
            assert.equal(result, `${REFUSED}- .git/modules/sub/config 的 filter.x.clean：过滤器：git 读写 .gitattributes 选中的文件时运行它\n${HINT}`);
        });

        test('子模块的配置里没有程序：diff.submodule=diff 也只显示子模块指向的提交，不进去看', async () => {
            const { top, sub, base } = withSubmodule();
            const before = git(sub, 'rev-parse', 'HEAD').trim();
            git(sub, 'commit', '-q', '-am', 'two');
            fs.writeFileSync(path.join(sub, 'f.txt'), 'c\n');
            const after = git(sub, 'rev-parse', 'HEAD').trim();
            const result = await gitDiff(stage, top, base);
            assert.match(result, /^1 个文件有改动：sub\n/);
            assert.ok(result.includes(`\n-Subproject commit ${before}\n+Subproject commit ${after}\n`), result);
            assert.doesNotMatch(result, /^Submodule sub|f\.txt|dirty/m, '没有进子模块');
        });

        test('仓库配置写了程序：每一项都说出来（开关和空值不算），一个也不运行', async () => {
            const { repo, base, evil, marker } = lab();
            const top = repo('top', { 'a.txt': 'old\n', '.gitattributes': '*.txt filter=x diff=y\n' });
            fs.writeFileSync(path.join(top, 'a.txt'), 'new\n');
            for (const [key, value] of [['core.fsmonitor', evil], ['core.pager', evil], ['core.hooksPath', base], ['diff.y.textconv', evil],
                ['diff.external', evil], ['diff.z.command', ''], ['filter.x.clean', evil], ['filter.x.required', 'true'], ['pager.diff', evil],
                ['pager.log', 'false']]) {
                git(top, 'config', key, value);
            }
            const result = await gitDiff(stage, top, base);
            assert.equal(marker(), '');
            assert.equal(result, REFUSED + [
                'core.fsmonitor：文件监视器：git 每次读索引时运行它',
                'core.pager：分页器：git 把输出交给它',
                'core.hookspath：钩子目录：git 在提交、刷新索引等时候运行里面的程序',
                'diff.y.textconv：diff 驱动：git 比较 .gitattributes 选中的文件时运行它',
                'diff.external：外部 diff：git 比较每个文件时运行它',
                'filter.x.clean：过滤器：git 读写 .gitattributes 选中的文件时运行它',
                'pager.diff：分页器：git 把输出交给它',
            ].map((line) => `- .git/config 的 ${line}\n`).join('') + HINT);
        });

        test('include.path 从工作区的文件引进 textconv、.git/hooks 里有 post-index-change：说出实际写在哪里，不运行', async () => {
            const { repo, base, evil, marker } = lab();
            const top = repo('top', { 'a.txt': 'old\n', '.gitattributes': '*.txt diff=y\n', 'more.gitconfig': `[diff "y"]\n\ttextconv = ${evil}\n` });
            fs.writeFileSync(path.join(top, 'a.txt'), 'new\n');
            git(top, 'config', 'include.path', '../more.gitconfig');
            fs.copyFileSync(evil, path.join(top, '.git', 'hooks', 'post-index-change'));
            const result = await gitDiff(stage, top, base);
            assert.equal(marker(), '');
            assert.equal(result, REFUSED + '- more.gitconfig 的 diff.y.textconv：diff 驱动：git 比较 .gitattributes 选中的文件时运行它\n' +
                '- 钩子 .git/hooks/post-index-change：git 刷新索引时运行它\n' + HINT);
        });

        test('环境里的 GIT_CONFIG_*、全局配置 ~/.gitconfig 写了程序：都不用，照常返回改动', async () => {
            const { repo, base, evil, marker } = lab();
            const top = repo('top', { 'a.txt': 'old\n', '.gitattributes': '*.txt filter=x diff=y\n' });
            fs.writeFileSync(path.join(top, 'a.txt'), 'new\n');
            const home = workdir({ '.gitconfig': `[core]\n\tfsmonitor = ${evil}\n[filter "x"]\n\tclean = ${evil}\n[diff "y"]\n\ttextconv = ${evil}\n` });
            const result = await gitDiff(stage, top, base, {
                HOME: home, GIT_CONFIG_COUNT: '2', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: evil,
                GIT_CONFIG_KEY_1: 'filter.x.clean', GIT_CONFIG_VALUE_1: evil,
            });
            assert.equal(marker(), '');
            assert.match(result, /^1 个文件有改动：a\.txt\n/);
            assert.match(result, /^-old\n\+new$/m);
        });

        test('部分克隆缺文件内容、远端地址是 ext::<命令>：git diff 不去远端取，失败并说明', async () => {
            const { repo, base, marker } = lab();
            const src = repo('src', { 'a.txt': 'old\n' });
            git(src, 'config', 'uploadpack.allowFilter', 'true');
            git(base, 'clone', '-q', '--filter=blob:none', '--no-checkout', `file://${src}`, 'top');
            const top = path.join(base, 'top');
            git(top, 'config', 'protocol.ext.allow', 'always');
            git(top, 'config', 'remote.origin.url', `ext::sh -c touch% ${path.join(base, 'MARKER')}`);
            fs.writeFileSync(path.join(top, 'a.txt'), 'new\n');
            const result = await gitDiff(stage, top, base);
            assert.equal(marker(), '');
            assert.match(result, /^git diff 失败：.*transport 'ext' not allowed/m);
        });
    });
}
