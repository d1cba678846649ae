// 测试用的工作文件夹：临时目录里新建，写好给定的文件，测试进程退出时删掉。
import { createHash } from 'node:crypto';
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

const homes = new Map<string, string>();

/**
 * 在 cwd 里运行的 Agent 没有另给 HOME 时用的主目录：同一个文件夹里先后跑的 Agent 算同一个用户，信任记录和状态文件的
 * 写入记录（~/.geekagent/written.json）在前后两次运行之间保留。每个文件夹一个：测试之间互不影响。
 */
export function homeFor(cwd: string): string {
    if (!homes.has(cwd)) homes.set(cwd, workdir());
    return homes.get(cwd)!;
}

/**
 * 把测试自己在 cwd 里写好的状态文件（.geekagent/ 下的存档、记忆、撤销记录、知识库）记作这个用户的 Agent 写的：
 * 没有记录的状态文件 Agent 当作随仓库克隆来的，不用它。摘要的算法和 Agent 的 written.ts 相同。
 */
export function ownState(cwd: string, ...files: string[]): void {
    const record = path.join(homeFor(cwd), '.geekagent', 'written.json');
    const written = fs.existsSync(record) ? JSON.parse(fs.readFileSync(record, 'utf8')) : {};
    for (const file of files) {
        let data: unknown;
        try {
            data = JSON.parse(fs.readFileSync(path.join(cwd, file), 'utf8'));
        } catch {
            continue;   // 读不出来的文件 Agent 照旧报错，用不着记录
        }
        written[path.join(cwd, file)] = createHash('sha256').update(JSON.stringify(data)).digest('hex');
    }
    fs.mkdirSync(path.dirname(record), { recursive: true });
    fs.writeFileSync(record, JSON.stringify(written));
}
