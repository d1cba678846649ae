// —— 加固：边读边脱敏 ——
// Day 8 的规矩是先脱敏整段、再切：read 只要一页，却不能为此把整个文件读进内存（几十 MB、没有一个换行的文件也一样）。
// 所以一块一块地读，每次把攒着的原文切下前面一段脱敏（safeCut 说切在哪里，redactFilePiece 脱敏这一段），结果和整个文件
// 一起 redactFileContent 的一样，攒着的原文不超过一块加几段余量（每段 4 KiB 加最长的密钥；files.ts 的 charWindow）。
import { longestSecret, redact, redactEnvLines, secretEnvLine, secretSpans } from './redact.ts';

/** 切下来的一段停在哪里：行首，一行普通的行的中间，一行密钥行（像 .env 的、值被换掉的）的中间。 */
export type LineState = 'start' | 'plain' | 'secret';

/**
 * 切下来的一段脱敏，state 是上一段停在哪里。停在密钥行的中间时，这一段到第一个换行为止还是那个值，去掉（那一行只剩
 * NAME=[REDACTED:NAME]）——否则一行几十 KB 的 TOKEN=…，切开后的后半截不带 NAME=，单看认不出；停在普通行的中间时，
 * 接着的那部分不是行首，逐行的规则不看它。返回脱敏后的这一段，和它停在哪里
 */
export function redactFilePiece(text: string, state: LineState): { piece: string; state: LineState } {
    if (text === '') return { piece: '', state };   // 还没切（safeCut 说先再读一些）
    let clean = redact(text);   // 行从这里看起：一个私钥块换成 [REDACTED] 以后，它的几行在整个文件的脱敏里也只算一行
    if (state === 'secret') {
        const end = clean.indexOf('\n');
        if (end === -1) return { piece: '', state };
        clean = clean.slice(end);
        state = 'plain';
    }
    const nl = clean.indexOf('\n');
    const from = state === 'start' ? 0 : nl === -1 ? clean.length : nl + 1;   // 逐行的规则从哪里看起
    const piece = clean.slice(0, from) + redactEnvLines(clean.slice(from));
    if (text.endsWith('\n')) return { piece, state: 'start' };
    if (from === clean.length && state === 'plain') return { piece, state };   // 整段都在上一段那一行里
    return { piece, state: secretEnvLine(clean.slice(clean.lastIndexOf('\n') + 1)) ? 'secret' : 'plain' };
}

/**
 * 攒着的原文里，前面哪一段可以先脱敏、交出去；0 表示先再读一些。切点离末尾留出比最长密钥还长的余量，尽量切在换行处，
 * 其次空白处（令牌里没有空白），再不然硬切。然后往回挪，不切在：私钥块的开头里（BEGIN 之后一段余量里还没有 END：挪到那一行的
 * 行首，行首太远就挪到 BEGIN 前）、认得出的密钥中间（硬切时）、像 .env 的一行的开头里（NAME= 和值的第一个字之间：这一行是不是
 * 密钥行，要在切点之前看得出来）。每一步都挪不过两段余量、也不挪到 0：一行再长（几十 MB、没有换行）也往前切，攒着的原文
 * 不超过一块加五段余量。局限：比余量还长的令牌和私钥块、开头（空白、#、名字）比余量还长的行，切开以后认不全
 */
export function safeCut(text: string): number {
    const margin = longestSecret() + 4096;
    const limit = text.length - margin;
    if (limit <= 0) return 0;
    const newline = text.lastIndexOf('\n', limit - 1) + 1;
    const space = Math.max(text.lastIndexOf(' ', limit - 1), text.lastIndexOf('\t', limit - 1)) + 1;
    let cut = newline > limit - margin ? newline : space > limit - margin ? space : limit;
    const begin = text.lastIndexOf('-----BEGIN', cut);
    if (begin > 0 && begin > text.lastIndexOf('-----END', cut) && cut - begin < margin) {
        const keyLine = text.lastIndexOf('\n', begin) + 1;   // 整个私钥块连同它那一行（PRIVATE_KEY="-----BEGIN…）留给下一段
        cut = keyLine > 0 && begin - keyLine < margin ? keyLine : begin;
    } else if (cut === limit) {
        cut = outsideSecrets(text, cut, margin);
    }
    const line = text.lastIndexOf('\n', cut - 1) + 1;
    return line > 0 && cut - line < margin && ENV_PREFIX.test(text.slice(line, cut)) ? line : cut;
}

// 一行的开头还看不出是不是密钥行：空白、#、export、名字、=，还没有值的第一个字
const ENV_PREFIX = /^[ \t]*(?:#+[ \t]*)?(?:export[ \t]+)?(?:[A-Za-z_][A-Za-z0-9_]*(?:=[ \t]*)?)?$/;

// 硬切的切点落在认得出的密钥中间（只看切点前后一段余量）：挪到它的开头；几处互相重叠时挪到最前面那处的开头
function outsideSecrets(text: string, cut: number, margin: number): number {
    const from = Math.max(0, cut - margin);
    const spans = secretSpans(text.slice(from)).map(([start, end]) => [from + start, from + end]);
    for (let moved = true; moved;) {
        const inside = spans.find(([start, end]) => start > 0 && start < cut && end > cut);
        moved = inside !== undefined;
        if (inside) cut = inside[0];
    }
    return cut;
}
