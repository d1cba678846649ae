// code-review 技能自带的工具：查看工作区相对 HEAD 的改动。
import { execFile } from 'node:child_process';
import type { Tool } from '../../tools.js';

const MAX_CHARS = 4000;

function gitDiff(): Promise<string> {
    return new Promise((resolve) => {
        execFile('git', ['diff', 'HEAD'], { timeout: 10_000, maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
            if (error) return resolve(`git diff 失败：${(stderr || error.message).trim()}`);
            if (!stdout.trim()) return resolve('（没有未提交的改动）');
            const files = [...stdout.matchAll(/^diff --git a\/(.+?) b\//gm)].map((m) => m[1]);
            const body = stdout.length > MAX_CHARS ? `${stdout.slice(0, MAX_CHARS)}\n…(已截断，共 ${stdout.length} 个字符)` : stdout;
            resolve(`${files.length} 个文件有改动：${files.join(', ')}\n${body}`);
        });
    });
}

export const tools: Tool[] = [{
    name: 'git_diff',
    description: '查看当前 git 仓库相对 HEAD 的未提交改动（git diff HEAD）',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    run: gitDiff,
}];
