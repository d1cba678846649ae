// —— 加固：网址真正指向哪台主机 ——
// Day 12：确认提示照模型写的原样显示网址，可 http://2130706433/ 就是 127.0.0.1，http://аpple.com（西里尔字母 а）
// 也不是 apple.com，http://apple.com@evil.com/ 连的是 evil.com。所以网址下面再写一行真正要连的主机，按 WHATWG URL
// 解析（fetch 自己也这样解析）：国际化域名变成 punycode（xn--…），十进制、十六进制、八进制写法的 IPv4 还原成点分形式；
// 本机和内网地址明说。限制：不查 DNS，解析到内网的普通域名（如 127.0.0.1.nip.io）标不出来。
import { isIP } from 'node:net';

/** 接在网址后面的一行「主机：…」，本机、内网地址带上说明；不是 http(s) 网址时是空串。 */
export function hostNote(raw: string): string {
    let url: URL;
    try {
        url = new URL(raw);
    } catch {
        return '';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return '';
    const notes = [addressKind(url.hostname)];
    if (url.hostname.split('.').some((label) => label.startsWith('xn--'))) notes.push('国际化域名，按 punycode 显示');
    const said = notes.filter(Boolean).join('，');
    return `\n主机：${url.host}${said ? `（${said}）` : ''}`;
}

// 本机：127/8、0/8、localhost、::1、::；内网：RFC 1918、100.64/10（运营商 NAT）、169.254/16 和 fe80::/10（链路本地）、fc00::/7
function addressKind(hostname: string): string {
    const host = hostname.replace(/\.$/, '').toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost')) return '本机地址';
    const ip = host.replace(/^\[(.*)\]$/, '$1');
    if (isIP(ip) === 4) return ipv4Kind(ip.split('.').map(Number));
    if (isIP(ip) === 6) return ipv6Kind(ipv6Groups(ip));
    return '';
}

function ipv4Kind([a, b]: number[]): string {
    if (a === 127 || a === 0) return '本机地址';
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return '内网地址';
    if (a === 100 && b >= 64 && b <= 127) return '内网地址';
    if (a === 169 && b === 254) return '内网地址，链路本地：云服务器的元数据服务就在这一段';
    return '';
}

function ipv6Kind(g: number[]): string {
    if (g.slice(0, 7).every((x) => x === 0) && g[7] <= 1) return '本机地址';
    // ::ffff:a.b.c.d（WHATWG 写成 ::ffff:7f00:1）是 IPv4 地址换了个写法
    if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return ipv4Kind([g[6] >> 8, g[6] & 0xff]);
    if ((g[0] & 0xfe00) === 0xfc00) return '内网地址';
    if ((g[0] & 0xffc0) === 0xfe80) return '内网地址，链路本地';
    return '';
}

// WHATWG 给的 IPv6 主机是压缩过的十六进制写法（::1、fc00::1）：展开成 8 个 16 位的组
function ipv6Groups(ip: string): number[] {
    const [head, tail] = ip.split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
    return [...left, ...zeros, ...right].map((g) => parseInt(g, 16));
}
