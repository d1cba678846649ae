// Day 11：code-review 技能自带的工具：查看工作区相对 HEAD 的改动。
import { execFile } from 'node:child_process';
import { truncateOutput, type Tool } from '../../tools.js';

const MAX_CHARS = 4000;   // diff 比一般工具输出长，多留一些

function gitDiff(): Promise<string> {
    return new Promise((resolve) => {
        execFile('git', ['diff', 'HEAD'], { timeout: 10_000, maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
            if (error) return resolve(`git diff 失败：${(stderr || error.message).trim()}`);
            if (!stdout.trim()) return resolve('（没有未提交的改动）');
            const files = [...stdout.matchAll(/^diff --git a\/(.+?) b\//gm)].map((m) => m[1]);
            resolve(`${files.length} 个文件有改动：${files.join(', ')}\n${truncateOutput(stdout, MAX_CHARS)}`);
        });
    });
}

export const tools: Tool[] = [{
    name: 'git_diff',
    description: '查看当前 git 仓库相对 HEAD 的未提交改动（git diff HEAD）',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    run: gitDiff,
}];
