// 读普通文件的唯一入口：不是普通文件就拒绝，有大小上限。
import fs from 'node:fs';

// .env、mcp.json、状态文件和知识库文件都经这里读。克隆来的文件夹可以把 .env 换成命名管道，
// 或指向 /dev/stdin、/dev/zero 的符号链接：直接 readFileSync 会一直等下去，或者一直读（几 GB 内存），Agent 启动时悄悄卡住。
// 所以先非阻塞地打开（打开命名管道不等写的一方），用 fstat 看打开的到底是什么（指向普通文件的链接照读），
// 再最多读上限多一个字节。上限：.env、mcp.json 这类手写的配置 1 MiB；状态文件的上限见 storage.ts
export const CONFIG_CAP = 1024 * 1024;

export function readRegularFile(file: string, cap: number): string {
    const fd = openRegularFile(file);
    try {
        const st = fs.fstatSync(fd);
        const buf = Buffer.alloc(Math.min(st.size, cap) + 1);
        let n = 0;
        let got = -1;
        while (got !== 0 && n < buf.length) {
            got = fs.readSync(fd, buf, n, buf.length - n, null);
            n += got;
        }
        if (n > cap) throw new Error(`拒绝读取 ${file}：超过 ${cap / 1024 / 1024} MiB 的上限，不像是手写或 Agent 写的文件。提示：看看它是什么，移走或删掉它`);
        return buf.toString('utf8', 0, n);
    } finally {
        fs.closeSync(fd);
    }
}

/** 打开一个普通文件来读；不是普通文件就关上、抛出。 */
export function openRegularFile(file: string): number {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    if (fs.fstatSync(fd).isFile()) return fd;
    fs.closeSync(fd);
    throw new Error(`拒绝读取 ${file}：不是普通文件（是命名管道、设备或套接字，或指向它们的链接），读它会卡住。提示：换成普通文件，或者把它移走`);
}
