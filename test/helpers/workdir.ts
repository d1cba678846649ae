// 测试用的工作文件夹：临时目录里新建，写好给定的文件，测试进程退出时删掉。
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];
process.on('exit', () => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * 新建一个空文件夹并写入 files（键是相对路径，可以带子目录），返回它的真实路径。
 * 真实路径：macOS 的 /tmp 是符号链接，和 Agent 里的 process.cwd() 比较路径时要一致。
 */
export function workdir(files: Record<string, string | Buffer> = {}): string {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-test-')));
    made.push(dir);
    for (const [name, content] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        fs.writeFileSync(path.join(dir, name), content);
    }
    return dir;
}
