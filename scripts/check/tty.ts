// 在伪终端里跑学习者的 Agent（npm run check 的 --tty）：从第 7 天起，原教程的 Agent 只在终端里跑，stdin、stdout 不是终端就退出。
// 不加依赖：Linux 上用 util-linux 的 script（script -qfec 命令 /dev/null）开一个伪终端，命令先用 stty 定好行列再 exec 进 Agent。
// 收输出、期限、写输入都和管道一样（spawn.ts 的 attach）；这里只有伪终端自己的几样：回车是 \r（字回显了再按回车，像人一样），
// 输入结束是 Ctrl+D，Agent 是 script 下面的那个进程，杀的时候按它的会话找（它起的进程可能另开了进程组）。
// 像人一样打字由 typist.ts 做；这里的 minQuietMs 让它在输出静了至少 1 秒（比章节里教的任何「等一会儿再刷新」都长）才打下一行。
// 全屏界面会重画，屏幕上的长文字不可靠：stdout() 是去掉控制序列的文字，只用来找短标记；Agent 的 stderr 也写在这个终端上，在 stdout() 里。
// 界面空闲时还一直重画（比如每秒走的计时器）的 Agent 等不到安静：检查等 FORCE_MS 后照样打，并在诊断里说出来。
// 限制：只支持 Linux（要读 /proc 找出整个会话的进程、结束时一个不留）；macOS 的 BSD script 参数不同（没有 -c、-e），这里没有实现。
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { attach, type AgentProcess, type Spawner, type StartOptions, type Wiring } from './spawn.ts';

const ROWS = 40;
const COLS = 120;
/**
 * 字打完、Agent 回显了（它读到了这些字）再按回车：逐键读输入的界面库把一次读到的「字+回车」当成粘贴进来的一段文字，不当回车。
 * 不回显的 Agent 最多等这么久。
 */
const ECHO_MS = 500;

/** 这台机器上用不了 --tty 时说明原因（中文，给学习者看）；用得了是 null。 */
export function ttyUnsupported(): string | null {
    if (process.platform !== 'linux') {
        return `--tty 只支持 Linux（这台机器是 ${process.platform}）：它用 util-linux 的 script 开伪终端、读 /proc 收拾进程；` +
            'macOS 自带的 BSD script 参数不同，没有实现。可以改用行模式：stdin 不是终端时不开全屏界面（isTTY ? 全屏界面 : 行模式）';
    }
    const probe = spawnSync('script', ['--version'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0 || !/util-linux/.test(probe.stdout)) {
        return '--tty 要用 util-linux 的 script 命令，这台机器上没有找到（Debian/Ubuntu：apt install bsdutils；Fedora：dnf install util-linux-script）';
    }
    return null;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 去掉控制序列和回车，留下能找标记的文字（全屏界面的屏幕内容不可靠，只用来找短标记）。 */
export function plainText(output: string): string {
    return output
        .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '')          // OSC（标题等）
        .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')                   // CSI（颜色、光标、清屏）
        .replace(/\x1b[@-Z\\-_]/g, '')
        .replace(/\r/g, '');
}

interface Proc { pid: number; ppid: number; sid: number }

function processTable(): Proc[] {
    const table: Proc[] = [];
    for (const name of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(name)) continue;
        try {
            const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
            // pid (comm) state ppid pgrp session …：comm 里可能有空格和括号，从最后一个 ) 之后读
            const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
            table.push({ pid: Number(name), ppid: Number(fields[1]), sid: Number(fields[3]) });
        } catch {
            // 进程刚好退出了
        }
    }
    return table;
}

/** 一次运行的伪终端那几样。Agent 是 script 的子进程里 setsid 过的那个（会话首进程，sid 等于 pid），找到一次就记住。 */
function ttyWiring(): Wiring {
    let agent: number | undefined;
    const find = (child: ChildProcess, table?: Proc[]): number | undefined => {
        // setsid 之前它还在我们的会话里：那时不算，按那个会话杀就杀到自己头上了
        agent ??= (table ?? processTable()).find((p) => p.ppid === child.pid && p.sid === p.pid)?.pid;
        return agent;
    };
    return {
        async enter(io, line) {
            if (line) {
                const before = io.outputs();
                io.write(line);
                for (const start = Date.now(); io.outputs() === before && Date.now() - start < ECHO_MS;) await sleep(10);
            }
            io.write('\r');
        },
        end(child) {
            if (child.stdin!.writable) child.stdin!.write('\x04');   // 行首的 Ctrl+D：输入结束
        },
        // 还没找到时给 script 自己：Agent 是它的子进程，typist.ts 看见有子进程在跑，就不会以为 Agent 在等输入
        agentPid: (child) => find(child) ?? child.pid,
        // 整个会话一个不留：script、Agent、Agent 起的每个进程（包括自己另开进程组的）
        kill(child) {
            const table = processTable();
            const sid = find(child, table);
            const doomed = new Set<number>();
            const add = (pid: number) => {
                if (doomed.has(pid)) return;
                doomed.add(pid);
                for (const p of table) if (p.ppid === pid) add(p.pid);
            };
            if (child.pid) add(child.pid);
            for (const p of table) if (sid && p.sid === sid) add(p.pid);
            for (const pid of doomed) {
                try {
                    process.kill(pid, 'SIGKILL');
                } catch {
                    // 已经退出
                }
            }
            try {
                if (child.pid) process.kill(-child.pid, 'SIGKILL');
            } catch {
                // 整组都已经退出
            }
        },
    };
}

function startTty(command: string[], opts: StartOptions): AgentProcess {
    const shell = `stty rows ${ROWS} cols ${COLS}; exec ${command.map(quote).join(' ')}`;
    const child = spawn('script', ['-qfec', shell, '/dev/null'], {
        cwd: opts.cwd,
        env: { TERM: 'xterm-256color', ...opts.env, SHELL: '/bin/sh' },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,              // script 自己一个进程组；Agent 在伪终端的会话里，kill 另找
    });
    const wiring = ttyWiring();
    const run = attach(child, opts.timeoutMs, wiring);
    run.onOutput(() => void wiring.agentPid(child));   // 一有输出就记下 Agent 的会话：它早早退出了也找得到它留下的进程
    let raw = '';
    let plain = '';
    return {
        ...run,
        stdout() {
            const now = run.stdout();
            if (now !== raw) [raw, plain] = [now, plainText(now)];
            return plain;
        },
    };
}

/** --tty：在伪终端里启动。 */
export const TTY: Spawner = { name: 'tty', start: startTty, minQuietMs: 1000 };
