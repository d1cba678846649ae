// npm run check -- <天> <文件夹> --init：把第 N 天之前的阶段复制进一个新文件夹，作为自己写第 N 天的起点。
export function initFolder(day: number, folder: string, root: string): number {
    console.error(`--init 还没写好（第 ${day} 天，${folder}，${root}）`);
    return 2;
}
