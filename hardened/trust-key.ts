// —— 加固：信任记录的指纹 ——
// Day 8：信任记录的指纹。指纹是信任问题列出的那些设置（原值）的 HMAC-SHA256，密钥是每个用户自己的一串随机字节。
// 记录里不存设置本身，也不存它们的普通哈希：.env 里常有 DB_PASSWORD=hunter2 这样的值，普通的 sha256 就是一台离线猜测机——
// 拿到 trusted-folders.json 的人把常见的密码一个个代进去算、对一对，就知道了密码。HMAC 没有那串随机字节就算不出来；
// 它存在 ~/.geekagent/trust-key 里，只有你自己能读写（0600），第一次要用时生成。
// 算的是原值：改了 NODE_OPTIONS 里的一个字、换了 .env 里的一个密钥、改了密钥发往的模型地址，指纹都会变，信任问题就再问一次。
// 旧版记录里的指纹是（值脱敏之后的）普通 sha256，对不上任何 HMAC：更新到这一版之后，每个文件夹都会再问一次。
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const TRUST_KEY_FILE = path.join(os.homedir(), '.geekagent', 'trust-key');

/** 这些设置的指纹。密钥读不出来、建不了时抛出，说清怎么办。 */
export function fingerprintOf(settings: string[]): string {
    return createHmac('sha256', trustKey()).update(settings.join('\n')).digest('hex');
}

// 每次用时读一遍（一次启动只问一次信任，不必缓存）；读不出来不当作没有：悄悄换一个新的，以前的回答就全不算了
function trustKey(): Buffer {
    try {
        if (!fs.existsSync(TRUST_KEY_FILE)) createKey();
        const text = fs.readFileSync(TRUST_KEY_FILE, 'utf8').trim();
        if (!/^[0-9a-f]{64}$/.test(text)) throw new Error('内容不是 64 个十六进制字符');
        return Buffer.from(text, 'hex');
    } catch (e) {
        throw new Error(`信任记录的密钥 ${TRUST_KEY_FILE} 用不了（${(e as Error).message}）。` +
            '提示：看看 ~/.geekagent/ 能不能写；密钥文件坏了就删掉它，Agent 会新建一个（之后每个文件夹都会再问一次）');
    }
}

// 先写进只有自己能读写的临时文件，再硬链接成正式的名字：两个 Agent 同时第一次启动时链接只有一个成功，
// 另一个读它写好的那一份；写到一半崩溃也不会留下半个密钥
function createKey(): void {
    const tmp = `${TRUST_KEY_FILE}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
        fs.mkdirSync(path.dirname(TRUST_KEY_FILE), { recursive: true });
        fs.writeFileSync(tmp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
        fs.linkSync(tmp, TRUST_KEY_FILE);
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;   // 另一个 Agent 刚建好了：用它的
    } finally {
        fs.rmSync(tmp, { force: true });
    }
}
