// npm run check -- <天> <文件夹> --init：把第 N 天之前的阶段复制进一个新文件夹，作为自己写第 N 天的起点，再列出要做到的检查。
// 第 1 天没有之前的阶段：只建一个空文件夹，index.ts 从头写。
import fs from 'node:fs';
import path from 'node:path';
import { STAGE_DAYS } from '../days.ts';
import { checksOf } from './report.ts';

/** 第 day 天之前的最后一个阶段；第 1 天没有（undefined）。 */
function stageBefore(day: number): string | undefined {
    return Object.keys(STAGE_DAYS).filter((stage) => STAGE_DAYS[stage].at(-1)! < day).at(-1);
}

export async function initFolder(day: number, folder: string, root: string): Promise<number> {
    const rel = path.relative(root, folder);
    const shown = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : folder;
    if (fs.existsSync(folder) && fs.readdirSync(folder).length > 0) {
        console.error(`${shown} 已经存在而且不是空的：--init 不覆盖任何东西。换一个文件夹名，或者直接 npm run check -- ${day} ${shown}`);
        return 2;
    }
    const stage = stageBefore(day);
    const from = stage ? STAGE_DAYS[stage].at(-1)! : 0;   // 复制来的阶段含的最后一天
    fs.mkdirSync(folder, { recursive: true });
    if (stage) {
        fs.cpSync(path.join(root, stage), folder, { recursive: true, filter: (src) => !path.basename(src).startsWith('.') });
        console.log(`已把 ${stage} 复制到 ${shown}：第 ${from === 1 ? 1 : `1–${from}`} 天已经写好，从这里接着写。`);
    } else {
        console.log(`已建好空文件夹 ${shown}：第 1 天从头写，入口是 ${shown}/index.ts。`);
    }
    const todo = Array.from({ length: day - from }, (_, i) => from + 1 + i);
    console.log(`\n要自己写的是第 ${todo.length === 1 ? todo[0] : `${todo[0]}–${day}`} 天，检查清单：`);
    for (const d of todo) {
        for (const check of await checksOf(d)) console.log(`☐ ${check.optional ? '☆ ' : ''}第 ${d} 天 · ${check.name}`);
    }
    console.log(`\n写好一项就跑一次：npm run check -- ${day} ${shown}${todo.length > 1 ? `（只看某一天：加 --only N）` : ''}`);
    return 0;
}
