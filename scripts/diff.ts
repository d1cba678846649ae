// 读一个阶段相对前一阶段改了什么：npm run diff -- day11 day15
// 比较除 README 以外的所有文件（新文件整份显示）：章节文字的改动会淹没代码的改动。
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, stageFiles, STAGES } from './stages.js';

const [from, to] = process.argv.slice(2);
if (!STAGES.includes(from) || !STAGES.includes(to)) {
    console.error(`用法：npm run diff -- <旧阶段> <新阶段>，例如 npm run diff -- day11 day15（可选：${STAGES.join(' ')}）`);
    process.exit(2);
}

// git diff --no-index 没法排除文件，所以把两边要比的文件复制到临时目录里再比
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-diff-'));
for (const stage of [from, to]) {
    for (const file of stageFiles(stage, (f) => f !== 'README.md')) {
        const target = path.join(tmp, stage, file);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.copyFileSync(path.join(ROOT, stage, file), target);
    }
}
const color = process.stdout.isTTY && !process.env.NO_COLOR ? 'always' : 'never';
try {
    execFileSync('git', ['diff', '--no-index', `--color=${color}`, from, to], { cwd: tmp, stdio: 'inherit' });
} catch {
    // 有差异时 git 以 1 退出，这正是要的结果
} finally {
    fs.rmSync(tmp, { recursive: true, force: true });
}
