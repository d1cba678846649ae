// Day 7：终端小工具：按键解码、显示宽度、按显示宽度折行与截断。
// 这里全是纯逻辑（KeyDecoder 只记住跨两次 feed 的半截数据），不碰真实终端，所以能直接单测。
import { StringDecoder } from 'node:string_decoder';

export type KeyName =
    | 'enter' | 'backspace' | 'delete' | 'left' | 'right' | 'up' | 'down' | 'home' | 'end'
    | 'pageup' | 'pagedown' | 'wheelup' | 'wheeldown' | 'escape' | 'ctrl-c' | 'ctrl-d';

export type Key =
    | { type: 'text'; text: string }    // 一段连续的可打印文字（中文输入法一次上屏的整串也在这里）
    | { type: 'paste'; text: string }   // 括号粘贴的整块内容，换行统一成 \n
    | { type: 'key'; name: KeyName };

const key = (name: KeyName): Key => ({ type: 'key', name });

// 终端把按键当字节流送来：回车、退格、Ctrl+C、Ctrl+D 各是一个字节，方向键等是 ESC 开头的转义序列，
// 其余可打印字符连成一段文字。一个序列或一个中文字符的 UTF-8 字节可能被拆进两次 data 事件，
// 所以解码器要有状态：UTF-8 交给 StringDecoder 拼完整，转义序列没收全就留在 buf 里等下一次。
export class KeyDecoder {
    private utf8 = new StringDecoder('utf8');
    private buf = '';

    feed(data: Buffer | string): Key[] {
        this.buf += typeof data === 'string' ? data : this.utf8.write(data);
        const keys: Key[] = [];
        let i = 0;
        while (i < this.buf.length) {
            const used = this.paste === null ? this.decodeOne(i, keys) : this.takePaste(i, keys);
            if (used === 0) break;   // 半截序列（或粘贴的结束标记还没到），留给下一次
            i += used;
        }
        this.buf = this.buf.slice(i);
        return keys;
    }

    // 解码从 i 开始的一个键，返回用掉的字符数；0 表示数据不完整
    private decodeOne(i: number, keys: Key[]): number {
        const b = this.buf;
        const c = b.charCodeAt(i);
        if (c === 0x1b) return this.decodeEscape(i, keys);
        if (c === 0x0d || c === 0x0a) keys.push(key('enter'));
        else if (c === 0x7f || c === 0x08) keys.push(key('backspace'));
        else if (c === 0x03) keys.push(key('ctrl-c'));
        else if (c === 0x04) keys.push(key('ctrl-d'));
        else if (c >= 0x20) {
            let j = i;   // 连续的可打印字符合成一个 text 键，输入法一次上屏的整句不必拆成单字
            while (j < b.length && b.charCodeAt(j) >= 0x20 && b.charCodeAt(j) !== 0x7f) j++;
            keys.push({ type: 'text', text: b.slice(i, j) });
            return j - i;
        }
        return 1;   // 其余控制字符（Tab、Ctrl+其他字母）忽略
    }

    // —— 加固：转义序列的各种写法、单独的 Esc、括号粘贴、鼠标滚轮；显示宽度（中文、emoji）与折行 ——

    private paste: string | null = null;   // 非 null 表示正处在括号粘贴中间

    // 单独一个 ESC 的取舍：它既可能是 Esc 键，也可能是某个序列的开头，光看字节分不出来。
    // 我们的做法：feed 结尾剩一个 ESC 时先不下结论（pending 为真）；下一次 feed 若接着来的不是 [ 或 O，
    // 就当作 Esc 键；调用方在没有新数据时等一小会儿（界面里是 30 毫秒）再调用 flush()，把它确认成 Esc 键。
    get pending(): boolean {
        return this.buf.length > 0 && this.paste === null;
    }

    // 超时后调用：剩下的若正好是一个 ESC 就是 Esc 键；别的半截序列直接丢掉。粘贴中途不动。
    flush(): Key[] {
        if (this.paste !== null) return [];
        const rest = this.buf;
        this.buf = '';
        return rest === '\x1b' ? [key('escape')] : [];
    }

    // 括号粘贴中：一直收到结束标记为止，返回用掉的字符数
    private takePaste(i: number, keys: Key[]): number {
        const end = this.buf.indexOf(PASTE_END, i);
        if (end < 0) {
            // 结束标记本身也可能被拆开：末尾像是它开头的那一截先留着
            let keep = this.buf.length;
            const esc = this.buf.lastIndexOf('\x1b');
            if (esc >= i && PASTE_END.startsWith(this.buf.slice(esc))) keep = esc;
            this.paste += this.buf.slice(i, keep);
            return keep - i;
        }
        keys.push({ type: 'paste', text: (this.paste + this.buf.slice(i, end)).replace(/\r\n?/g, '\n') });
        this.paste = null;
        return end + PASTE_END.length - i;
    }

    // ESC 开头：CSI（ESC [）、SS3（ESC O），或者就是 Esc 键
    private decodeEscape(i: number, keys: Key[]): number {
        const b = this.buf;
        if (i + 1 >= b.length) return 0;
        const next = b[i + 1];
        if (next === '[') return this.decodeCsi(i, keys);
        if (next === 'O') {   // SS3：应用光标模式下的方向键、Home、End
            if (i + 2 >= b.length) return 0;
            const name = LETTER_KEYS[b[i + 2]];
            if (name) keys.push(key(name));
            return 3;
        }
        keys.push(key('escape'));   // ESC 后面跟普通字符（例如 Alt+x）：算一次 Esc，后面的字符照常解码
        return 1;
    }

    // CSI = ESC [ 参数字节(0x30–0x3f)* 中间字节(0x20–0x2f)* 结束字节(0x40–0x7e)
    private decodeCsi(i: number, keys: Key[]): number {
        const b = this.buf;
        let j = i + 2;
        while (j < b.length && b.charCodeAt(j) >= 0x30 && b.charCodeAt(j) <= 0x3f) j++;
        while (j < b.length && b.charCodeAt(j) >= 0x20 && b.charCodeAt(j) <= 0x2f) j++;
        if (j >= b.length) return j - i > 64 ? j - i : 0;   // 没收全就等；长得离谱的当垃圾丢掉
        const final = b[j];
        const code = final.charCodeAt(0);
        if (code < 0x40 || code > 0x7e) return j - i;   // 不合法：丢掉已读部分，从这个字节重新解码
        const params = b.slice(i + 2, j);
        if (params.startsWith('<')) {   // SGR 鼠标：ESC [ < 按钮 ; x ; y M/m，只关心滚轮
            const button = Number(params.slice(1).split(';')[0]) & ~0x1c;   // 去掉 Shift/Alt/Ctrl 位
            if (final === 'M' && button === 64) keys.push(key('wheelup'));
            if (final === 'M' && button === 65) keys.push(key('wheeldown'));
        } else if (final === '~') {
            const first = params.split(';')[0];
            if (first === '200') this.paste = '';
            else if (TILDE_KEYS[first]) keys.push(key(TILDE_KEYS[first]));
        } else if (LETTER_KEYS[final]) {
            keys.push(key(LETTER_KEYS[final]));   // 带修饰键的 ESC[1;5A 也按普通方向键处理
        }
        return j + 1 - i;   // 其他不认识的序列（焦点事件、光标位置报告等）整段忽略
    }
}

const PASTE_END = '\x1b[201~';
// 同一个键各家终端发的序列不同：Home 有 ESC[H、ESC[1~、ESC[7~、ESC O H 几种写法，这里都认
const LETTER_KEYS: Record<string, KeyName> = { A: 'up', B: 'down', C: 'right', D: 'left', H: 'home', F: 'end' };
const TILDE_KEYS: Record<string, KeyName> = {
    '1': 'home', '7': 'home', '4': 'end', '8': 'end', '3': 'delete', '5': 'pageup', '6': 'pagedown',
};

// ---------- 显示宽度 ----------

// CSI（颜色、光标移动）、OSC（标题、超链接）和两字节的 ESC 序列。y 标志让它只在给定位置匹配：unitLength 靠它认出一整个序列
const ANSI_AT = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/y;

// 占两列的范围（东亚宽字符、全角、常见 emoji）。这是近似：终端自己的宽度表可能略有不同，
// 例如 emoji 的 ZWJ 组合序列在这里会按多个字符算宽度。
const WIDE = [
    0x1100, 0x115f, 0x2e80, 0x303e, 0x3040, 0xa4cf, 0xac00, 0xd7a3, 0xf900, 0xfaff,
    0xfe30, 0xfe4f, 0xff00, 0xff60, 0xffe0, 0xffe6, 0x1f300, 0x1f64f, 0x1f680, 0x1f6ff,
    0x1f900, 0x1f9ff, 0x20000, 0x3fffd,
];
// 上面范围之外、默认以 emoji 形式显示的字符（✅ ❌ ⭐ ⚡ 🟢 🪄 等）终端也画成两列，算错的话面板竖线会被挤歪。
// 国旗由两个区域指示符号组成，终端大多按两列画整面旗，所以单个符号按一列算
const EMOJI = /(?![\u{1f1e6}-\u{1f1ff}])\p{Emoji_Presentation}/u;
// 组合附加符号、变体选择符（属于 Mn）、零宽字符不占列
const ZERO_WIDTH = /[\p{Mn}\p{Me}\u200b-\u200f\u2060-\u2064\ufeff]/u;

export function charWidth(cp: number): number {
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
    if (cp < 0x300) return 1;   // 快速路径：ASCII 和拉丁字母
    for (let k = 0; k < WIDE.length; k += 2) {
        if (cp >= WIDE[k] && cp <= WIDE[k + 1]) return 2;
    }
    const ch = String.fromCodePoint(cp);
    if (EMOJI.test(ch)) return 2;
    return ZERO_WIDTH.test(ch) ? 0 : 1;
}

// 从 i 开始的一个“单位”占几个 UTF-16 码元：一整个 ANSI 序列，或一个码点（代理对算一个）
function unitLength(text: string, i: number): number {
    const c = text.charCodeAt(i);
    if (c === 0x1b) {
        ANSI_AT.lastIndex = i;
        return ANSI_AT.test(text) ? ANSI_AT.lastIndex - i : 1;
    }
    return c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1;
}

function unitWidth(text: string, i: number): number {
    return text.charCodeAt(i) === 0x1b ? 0 : charWidth(text.codePointAt(i)!);
}

export function displayWidth(text: string): number {
    let width = 0;
    for (let i = 0; i < text.length; i += unitLength(text, i)) width += unitWidth(text, i);
    return width;
}

// ---------- 折行与截断 ----------

// 按显示宽度折行：尽量在空格或宽字符之后断开，单词太长才硬断；溢出处的空格直接吃掉；\n 强制换行。
// 贪心折行有个性质：往文字末尾追加内容，只有最后一行会变。所以流式输出时调用方只需把
// “旧的最后一行 + 新文字”重新折一次（日志的增量折行靠这个）。
export function wrapText(text: string, width: number): string[] {
    const w = Math.max(1, width);
    const rows: string[] = [];
    let start = 0;      // 当前行的起点
    let used = 0;       // 当前行已用列数
    let brk = -1;       // 最近的可断点（空格或宽字符之后）
    let afterBrk = 0;   // 可断点之后已用的列数
    let i = 0;
    while (i < text.length) {
        const c = text.charCodeAt(i);
        if (c === 0x0a) {
            rows.push(text.slice(start, i));
            start = i + 1; used = 0; brk = -1; i++;
            continue;
        }
        const len = unitLength(text, i);
        const cw = unitWidth(text, i);
        if (used + cw > w && used > 0) {
            if (c === 0x20) {
                rows.push(text.slice(start, i));
                start = i + 1; used = 0; brk = -1; i++;
                continue;
            }
            if (brk > start && afterBrk + cw <= w) {
                rows.push(text.slice(start, brk));
                start = brk; used = afterBrk;
            } else {
                rows.push(text.slice(start, i));   // 只在单位边界上断，所以不会切开 ANSI 序列或代理对
                start = i; used = 0;
            }
            brk = -1;
        }
        used += cw;
        afterBrk += cw;
        i += len;
        if (c === 0x20 || cw === 2) { brk = i; afterBrk = 0; }
    }
    rows.push(text.slice(start));
    return rows;
}

// 截到不超过 width 列；宽字符放不下就整个不要（不会出现半个字）。被截掉的文字里若有颜色，补一个复位。
export function truncateToWidth(text: string, width: number): string {
    if (displayWidth(text) <= width) return text;
    let out = '';
    let used = 0;
    let colored = false;
    for (let i = 0; i < text.length;) {
        const len = unitLength(text, i);
        const cw = unitWidth(text, i);
        if (text.charCodeAt(i) === 0x1b) colored = true;
        else if (used + cw > width) break;
        out += text.slice(i, i + len);
        used += cw;
        i += len;
    }
    return out + (colored ? '\x1b[0m' : '');
}

// 截断后再用空格补齐到正好 width 列，面板和日志靠它对齐
export function padToWidth(text: string, width: number): string {
    const cut = truncateToWidth(text, width);
    return cut + ' '.repeat(Math.max(0, width - displayWidth(cut)));
}
