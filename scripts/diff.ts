// 读一个阶段相对前一阶段改了什么，一天一天地读：
//   npm run diff -- day11 day15              全部改动，先按天，同一天里按阅读顺序
//   npm run diff -- day11 day15 --day 15     只看第 15 天加的：它的新文件，然后是记到这一天的旧文件改动块
//   npm run diff -- day01 day04 --list       不打印代码，每个文件、每个改动块一行：记到哪天、凭什么（查「Day N：」标记用）
// 比较除 README 以外的所有文件（新文件整份显示）：章节文字的改动会淹没代码的改动。
// 一块改动算哪一天，规则在 days.ts（DAY_RULE，npm run stages 也打印它）。
//
// 阅读顺序：从上往下读——从用户和模型看到的东西，一直读到线上的字节。从入口 index.ts 出发沿 import 往下走：
//   一个文件的层数是从 index.ts 到它最长的那条导入链的步数，所以它总排在所有导入它的文件之后（先读用它的，再读它）；
//   同一层里按从 index.ts 广度优先第一次遇到的先后，也就是 import 语句的顺序。入口够不到的文件（演示服务器、技能自带的
//   工具和说明）放在最后，按名字。同一天里先列新文件，再列沿用文件的改动块，两者各自按这个顺序。
// 跨几个阶段比时（例如 day01 day15），没有标记的改动块记到后一个阶段的最后一天；--day N 则总是比较包含第 N 天的那个阶段
// 和它的前一阶段，因为跨阶段时一天的改动会和后面几天的改动挤进同一个改动块。
import { headerDay, type Hunk, readingOrder, STAGE_DAYS, tagDay } from './days.ts';
import { CODE, importsOf, LESSONS, type Piece, pieces, stageFiles } from './stages.ts';

function usage(message: string): never {
    console.error(`${message}\n用法：npm run diff -- <旧阶段> <新阶段> [--day N] [--list]，例如 npm run diff -- day11 day15 --day 15`
        + `（阶段：${LESSONS.join(' ')}）`);
    process.exit(2);
}

const args = process.argv.slice(2);
const flag = (name: string) => {
    const at = args.indexOf(name);
    return at === -1 ? undefined : args.splice(at, 2)[1] ?? usage(`${name} 后面要跟一个数`);
};
const list = args.includes('--list') ? (args.splice(args.indexOf('--list'), 1), true) : false;
const dayArg = flag('--day');
let [from, to] = args;
if (!LESSONS.includes(from) || !LESSONS.includes(to) || LESSONS.indexOf(from) >= LESSONS.indexOf(to) || args.length !== 2) {
    usage('要两个阶段，旧的在前');
}
const range = LESSONS.slice(LESSONS.indexOf(from) + 1, LESSONS.indexOf(to) + 1);
let days = range.flatMap((s) => STAGE_DAYS[s]);
if (dayArg !== undefined) {
    const day = Number(dayArg);
    if (!days.includes(day)) usage(`第 ${dayArg} 天不在 ${from} 到 ${to} 之间（可选：${days.join(' ')}）`);
    to = range.find((s) => STAGE_DAYS[s].includes(day))!;
    from = LESSONS[LESSONS.indexOf(to) - 1];
    days = [day];
}

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: string, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const shown = stageFiles(to, (f) => f !== 'README.md');
const order = readingOrder(new Map(shown.map((f) => [f, CODE.test(f) ? importsOf(to, f, shown) : []])));
const rank = (p: Piece) => (p.status === 'removed' ? order.length : order.indexOf(p.file));
const all = pieces(from, to, (f) => f !== 'README.md');
const pairDays = LESSONS.slice(LESSONS.indexOf(from) + 1, LESSONS.indexOf(to) + 1).flatMap((s) => STAGE_DAYS[s]);

/** 这一块凭什么记到这一天：文件头的标记、块里的标记，还是没有标记、记到最后一天。 */
function reason(p: Piece, hunk?: Hunk): string {
    const found = hunk
        ? hunk.added.map((a) => tagDay(a.text)).find((d) => d !== undefined && pairDays.includes(d))
        : headerDay(p.diff.hunks[0]?.added.map((a) => a.text) ?? []);
    if (found === p.day) return hunk ? '块里的标记' : '文件头的标记';
    return found === undefined ? '没有标记，记到最后一天' : `文件头标的第 ${found} 天不在比较的范围里，记到最后一天`;
}

function printDiff(p: Piece): void {
    for (const row of p.diff.head) console.log(paint('1', row));
    for (const row of p.diff.hunks.flatMap((h) => h.text)) {
        if (row.startsWith('@@')) console.log(paint('36', row));
        else if (row.startsWith('+')) console.log(paint('32', row));
        else if (row.startsWith('-')) console.log(paint('31', row));
        else console.log(row);
    }
}

function printList(p: Piece): void {
    const size = `+${p.added} -${p.del}`;
    if (p.status !== 'edited') {
        const what = p.status === 'removed' ? '删掉' : '新文件';
        console.log(`  ${what} ${p.file}  ${size}  ${p.status === 'removed' ? '' : reason(p)}`);
        return;
    }
    console.log(`  改动 ${p.file}  ${size}`);
    for (const h of p.diff.hunks) console.log(`    ${h.text[0].replace(/ @@.*/, ' @@')}  +${h.added.length} -${h.deleted}  ${reason(p, h)}`);
}

const groups: Piece['status'][][] = [['first', 'new'], ['edited'], ['removed']];
if (from !== args[0] || to !== args[1]) console.log(paint('33', `（第 ${days[0]} 天在 ${to} 里：比较的是 ${from} 和 ${to}）`));
for (const day of days) {
    const mine = all.filter((p) => p.day === day)
        .sort((a, b) => groups.findIndex((g) => g.includes(a.status)) - groups.findIndex((g) => g.includes(b.status)) || rank(a) - rank(b));
    const names = (status: Piece['status'][]) => mine.filter((p) => status.includes(p.status)).map((p) => p.file).join('、') || '无';
    console.log(paint('1;33', `======== 第 ${day} 天（${from} → ${to}）：新文件 ${names(groups[0])}；改动的旧文件 ${names(groups[1])}`
        + `${mine.some((p) => p.status === 'removed') ? `；删掉 ${names(groups[2])}` : ''} ========`));
    for (const p of mine) (list ? printList : printDiff)(p);
}
