// 全屏界面的一个 tmux 终端（terminal.ts 的 Terminal）加上读屏幕的办法：日志区、面板、分隔线、输入行，和退出之后终端还原了没有。
// 课（test/tui/lessons-tmux.test.ts）和加固版（test/tui/screen-tmux.test.ts）的布局相同：日志区左边留一列，右边 28 列的面板
// 以「│ 」开头，终端窄于 60 列时不显示面板；倒数第二行是分隔线，最后一行是输入行。
import assert from 'node:assert/strict';
import { Terminal } from './terminal.ts';

export const PANEL_WIDTH = 28;   // 规格：面板 28 列，比 60 列窄时隐藏

// 终端里一个字符占几列。故意不用被测代码的 width()：要拿真实终端画出来的结果去检验它。
// 中日韩宽字符、全角符号、默认以 emoji 显示的字符（国旗用的区域指示符号除外）占两列
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3040-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]|(?![\u{1f1e6}-\u{1f1ff}])\p{Emoji_Presentation}/u;
export const cells = (text: string) => Array.from(text).reduce((n, ch) => n + (WIDE.test(ch) ? 2 : 1), 0);

/** 全屏界面的一个终端：在通用的 Terminal 上加几个读屏幕的办法（日志区、面板、分隔线、输入行）。 */
export class FullScreen extends Terminal {
    constructor(stage: string, cols: number, rows: number, baseUrl: string) {
        super(stage, { cols, rows, env: { OPENAI_BASE_URL: baseUrl, GEEKAGENT_MAX_HISTORY: '1000000' } });   // 这里不测压缩
    }

    private get body(): number {
        return this.rows - 2;
    }

    private get panelShown(): boolean {
        return this.cols >= 60;
    }

    /** 日志区的文字有多少列：左边留一列，面板显示时再让出面板和一列间隔。 */
    get textCols(): number {
        return (this.panelShown ? this.cols - PANEL_WIDTH - 1 : this.cols) - 1;
    }

    /** 左边日志区的每一行（去掉左边空白和行尾补的空格）。 */
    log(screen: string[]): string[] {
        return screen.slice(0, this.body).map((line) => {
            const bar = this.panelShown ? line.indexOf('│') : -1;
            return (bar < 0 ? line : line.slice(0, bar)).trim();
        });
    }

    /** 日志区连起来的文字：折行处没有空格，所以中文句子可以整句查找。 */
    logText(screen: string[]): string {
        return this.log(screen).join('');
    }

    /** 右边面板的每一行（去掉 '│ '）。 */
    panel(screen: string[]): string[] {
        return screen.slice(0, this.body).map((line) => {
            const bar = line.indexOf('│');
            return bar < 0 ? '' : line.slice(bar + 1).trim();
        });
    }

    /** 面板里某个分节（'─ 本轮'、'本轮' 等）下面那一行。 */
    section(screen: string[], title: string): string | undefined {
        const panel = this.panel(screen);
        const at = panel.findIndex((line) => line === title || line.startsWith(`─ ${title}`));
        return at < 0 ? undefined : panel[at + 1];
    }

    rule(screen: string[]): string {
        return screen[this.rows - 2] ?? '';
    }

    inputRow(screen: string[]): string {
        return screen[this.rows - 1] ?? '';
    }

    /** 面板竖线在每个日志行上都落在同一列：宽字符算错一列，这里就会看出竖线歪了。 */
    assertAligned(screen: string[]): void {
        const column = this.cols - PANEL_WIDTH;   // 1 列空白 + 日志文字 + 1 列间隔
        screen.slice(0, this.body).forEach((line, row) => {
            const bar = line.indexOf('│');
            assert.ok(bar >= 0, `第 ${row + 1} 行没有面板竖线：${line}`);
            assert.equal(cells(line.slice(0, bar)), column, `第 ${row + 1} 行的竖线不在第 ${column + 1} 列：\n${screen.join('\n')}`);
        });
    }
}

/**
 * 入口退出之后：备用屏幕已关、鼠标上报已关、光标可见，原来的屏幕内容回来了（marker 为假时不查：改过窗口大小后，tmux 恢复普通屏幕时
 * 光标可能落在别处、把标记行挤进历史），全屏界面不见了。
 */
export function assertRestored(term: FullScreen, screen: string[], marker = true): void {
    const text = screen.join('\n');
    assert.equal(term.info('#{alternate_on}'), '0', '退出后仍在备用屏幕');
    assert.equal(term.info('#{mouse_any_flag}#{mouse_sgr_flag}'), '00', '退出后鼠标上报没有关掉');
    assert.equal(term.info('#{cursor_flag}'), '1', '退出后光标仍是隐藏的');
    if (marker) assert.match(text, /MARKER-BEFORE/, `原来的屏幕内容没有回来：\n${text}`);
    assert.match(text, /^bye$/m);
    assert.match(text, /^EXITED-0$/m);
    assert.ok(!text.includes('│') && !text.includes('You ›'), `退出后还看得到全屏界面：\n${text}`);
}

/**
 * 退出之后终端回到了普通模式（不再是原始模式）：打的字由终端回显，回车换行。窗格里这时是 sleep，谁也不读输入，
 * 看得见的字只能是终端驱动回显的；原始模式没还原时回显是关的，这两行永远不会出现。
 * 注意：node 退出时自己也把终端设置恢复成启动时的样子，所以只要进程真的退出了，少了 setRawMode(false) 这里也看不出来；
 * 这一条守的是章节承诺的结果（回到 shell 打字回显正常），离开备用屏幕、光标才是 Agent 自己必须做的（assertRestored）。
 */
export async function assertEchoes(term: Terminal): Promise<void> {
    term.enter('ECHO-ONE');
    term.type('ECHO-TWO');
    await term.until('退出后打的字回显、回车换行', (s) => {
        const at = s.indexOf('ECHO-ONE');
        return at >= 0 && s[at + 1] === 'ECHO-TWO';
    });
}
