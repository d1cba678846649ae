// 在真实终端里运行某个阶段的入口：tmux 开一个会话，用 send-keys 打字、按键，用 capture-pane 读屏幕（纯文字，没有颜色）。
// 管道跑不到的情形都在这里测：全屏界面、行模式里的 Ctrl+C、提前打的字。所有等待都是「等屏幕上出现某样东西」，不睡固定的时长。
// 每个测试进程一个独立的 tmux 服务（自己的套接字）、不读用户的 ~/.tmux.conf（-f /dev/null）、强制 UTF-8（-u）：
// 不碰用户正在用的 tmux，也不受他的按键绑定、默认 shell 之类的配置影响。
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEADLINE_MS } from '../../scripts/check/spawn.ts';
import { stageCommand } from './run-stage.ts';
import { waitUntil } from './wait.ts';
import { homeFor, workdir } from './workdir.ts';

const probe = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
/** 给 describe / test 的 skip：没有 tmux 时是跳过的原因。 */
export const noTmux: false | string = probe.status === 0 ? false : `tmux 不可用：${(probe.error?.message ?? probe.stderr?.trim()) || `退出码 ${probe.status}`}`;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const { TMUX: _tmux, TMUX_PANE: _pane, ...TMUX_ENV } = process.env;

let socket = '';
let sessions = 0;

/** 对本进程自己的 tmux 服务执行一条命令。第一次调用时启动服务。 */
export function tmux(...args: string[]): string {
    if (!socket) {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'geekagent-tmux-'));
        socket = path.join(dir, 'tmux.sock');
        // 一个一直在的会话：测试关掉自己的会话时服务不会退出，下一个会话连上去时不会撞上它正在退出
        run('new-session', '-d', '-s', 'keep', 'sleep 600');
        process.on('exit', () => {
            spawnSync('tmux', ['-S', socket, 'kill-server']);
            fs.rmSync(dir, { recursive: true, force: true });   // 服务退出时不删套接字文件
        });
    }
    return run(...args);
}

function run(...args: string[]): string {
    return execFileSync('tmux', ['-f', '/dev/null', '-u', '-S', socket, ...args], { encoding: 'utf8', env: TMUX_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface TerminalOptions {
    cols?: number;                          // 缺省 120×40
    rows?: number;
    cwd?: string;                           // 缺省新建的工作目录
    env?: Record<string, string>;           // 加在最小的环境之上（OPENAI_BASE_URL、HOME……）
    lineMode?: boolean;                     // stdout 接到 cat：stdin 仍是终端，输出是管道，也就是行模式
    outFile?: string;                       // stdout 写进这个文件（也是行模式）：写入是同步的，冻住 Agent 时文件里就是它写出的全部
    entry?: string;                         // 经 tsx 跑的 .ts 入口文件；缺省跑转成 JS 的 <stage>/index.ts（见 run-stage.ts）
}

/**
 * 一个会话：sh 先打印 MARKER-BEFORE，再运行入口，退出后打印 EXITED-退出码，然后 sleep 占住窗格，退出后的屏幕留着可读。
 * 不用 remain-on-exit：窗格一死 tmux 就把光标藏起来，没法检查入口有没有恢复光标。
 */
export class Terminal {
    readonly name = `t${++sessions}`;
    readonly cwd: string;
    readonly rows: number;
    readonly outFile?: string;
    cols: number;

    constructor(stage: string, opts: TerminalOptions = {}) {
        this.cols = opts.cols ?? 120;
        this.rows = opts.rows ?? 40;
        this.cwd = opts.cwd ?? workdir();
        this.outFile = opts.outFile;
        // env -i：只给这几个变量，测试进程里的 NO_COLOR、真实的 OPENAI_* 一律不带进去；HOME 是新的临时目录
        const vars = {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: homeFor(this.cwd),
            TERM: 'xterm-256color',
            OPENAI_API_KEY: 'sk-test-key-123456',
            OPENAI_MODEL: 'test-model',
            OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
            ...opts.env,
        };
        const output = opts.lineMode ? ' | cat' : opts.outFile ? ` > ${quote(opts.outFile)}` : '';
        const agent = `${stageCommand(stage, opts.entry).map(quote).join(' ')}${output}`;
        const script = `printf 'MARKER-BEFORE\\n'; ${agent}; echo "EXITED-$?"; exec sleep 600`;
        const command = ['env', '-i', ...Object.entries(vars).map(([k, v]) => quote(`${k}=${v}`)), 'sh', '-c', quote(script)].join(' ');
        tmux('new-session', '-d', '-x', String(this.cols), '-y', String(this.rows), '-s', this.name, '-c', this.cwd, command);
    }

    /** 屏幕上的每一行，和终端画的一样（折行的行不接回去）。 */
    lines(): string[] {
        return tmux('capture-pane', '-p', '-t', this.name).replace(/\n$/, '').split('\n');
    }

    /** 屏幕上的文字，折行的行接回一行（-J）；history 为真时连同滚出屏幕的部分。 */
    text(history = false): string {
        return tmux('capture-pane', '-p', '-J', ...(history ? ['-S', '-'] : []), '-t', this.name);
    }

    /** needle 在整段输出（含滚出屏幕的部分）里出现了几次。 */
    count(needle: string): number {
        return this.text(true).split(needle).length - 1;
    }

    info(format: string): string {
        return tmux('display-message', '-p', '-t', this.name, format).trim();
    }

    type(text: string): void {
        tmux('send-keys', '-t', this.name, '-l', text);
    }

    press(...keys: string[]): void {
        tmux('send-keys', '-t', this.name, ...keys);
    }

    /** 打一行字再回车。 */
    enter(line: string): void {
        if (line) this.type(line);
        this.press('Enter');
    }

    /**
     * 回答确认问题：等到最后一行是一个还空着的 [y/N]（行模式里光标停在它后面，全屏界面里是输入行），再打 answer 回车；
     * 返回回答时的屏幕文字（折行接回，同 text()）。
     * 测试里回答问题一律经过这里。Agent 显示问题之后要等一会儿（input.ts 的 ANSWER_SETTLE_MS）才显示 [y/N]，之前到的字
     * 只排队、不算回答；[y/N] 出现之后打的才是回答，所以等它出现就是等过了这段时间，不靠睡多久。
     * stdout 写进文件（outFile）时看文件的最后一行。调用方先等到这个问题本身出现，免得把上一个问题还没刷掉的 [y/N] 当成这一个。
     */
    async answer(answer: string): Promise<string> {
        let text = '';
        const output = () => (this.outFile ? (fs.existsSync(this.outFile) ? fs.readFileSync(this.outFile, 'utf8') : '') : this.text());
        const waiting = () => (text = output()).split('\n').filter((line) => line.trim()).at(-1)?.trim() === '[y/N]';
        await waitUntil('[y/N] 出现、等着回答', waiting, () => text);
        this.enter(answer);
        return text;
    }

    /**
     * 冻住 Agent（SIGSTOP），等内核确认它停下；返回让它接着跑的函数（SIGCONT）。冻着的时候打的字、模型发来的回复
     * 都在内核里排着，Agent 醒来时同时摆在它面前：这样测「两样都已经到了」的情形，不靠谁先谁后的运气。
     * 要冻得快时先用 agentPid() 取好 pid 传进来（找它要扫一遍 /proc）。
     */
    async freeze(pid = this.agentPid()): Promise<() => void> {
        this.frozen = pid;
        process.kill(pid, 'SIGSTOP');
        await waitUntil('Agent 停下', () => /^[Tt]$/.test(procState(pid)));
        return () => {
            this.frozen = 0;
            process.kill(pid, 'SIGCONT');
        };
    }

    private frozen = 0;

    /** Agent 进程（跑入口的 node）的 pid：窗格里那个 sh 的子进程中，命令行以 node 开头的一个。 */
    agentPid(): number {
        const sh = this.info('#{pane_pid}');
        for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
            try {
                const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
                const ppid = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
                if (ppid === sh && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(process.execPath)) return Number(pid);
            } catch { /* 进程刚好结束 */ }
        }
        throw new Error(`窗格 ${this.name} 里找不到 Agent 进程`);
    }

    resize(cols: number): void {
        this.cols = cols;
        tmux('resize-window', '-t', this.name, '-x', String(cols), '-y', String(this.rows));
    }

    /** 等到屏幕（按行）满足 check；超时报错时附上整屏内容。 */
    async until(what: string, check: (lines: string[]) => boolean, deadlineMs = DEADLINE_MS): Promise<string[]> {
        let lines: string[] = [];
        await waitUntil(what, () => check((lines = this.lines())), () => `--- 屏幕（${this.info('#{pane_width}×#{pane_height}')}）---\n${lines.join('\n')}`, deadlineMs);
        return lines;
    }

    /** 等到屏幕上出现这段字（折行接回之后），返回当时的屏幕文字。 */
    async shows(needle: string): Promise<string> {
        let text = '';
        await waitUntil(`屏幕上出现「${needle}」`, () => (text = this.text()).includes(needle), () => text);
        return text;
    }

    /** 等入口进程结束（sh 打印出退出码），返回退出后的屏幕。 */
    exited(): Promise<string[]> {
        return this.until('入口退出', (s) => s.some((line) => line.startsWith('EXITED-')));
    }

    /** 关掉会话（会话里的入口随 SIGHUP 走退出流程；还冻着的先让它接着跑，才收得到 SIGHUP）。 */
    close(): void {
        if (this.frozen) process.kill(this.frozen, 'SIGCONT');
        try {
            tmux('kill-session', '-t', this.name);
        } catch {
            // 会话已经不在了
        }
    }
}

// /proc/<pid>/stat 里的进程状态（R 运行、S 睡眠、T 停下……）；进程已经不在时是空串
function procState(pid: number): string {
    try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    } catch {
        return '';
    }
}
