// Day 8：密钥脱敏。名字里带 KEY / TOKEN / SECRET / PASSWORD 的环境变量，其值在工具结果和确认提示里
// 被替换成 [REDACTED:NAME]，这样密钥既不会发给模型，也不会显示在屏幕上。
export function isSecretName(name: string): boolean {
    return /KEY|TOKEN|SECRET|PASSWORD/i.test(name);
}

export function redact(text: string): string {
    const secrets = Object.entries(process.env)
        // 太短的值（如 KEYTIMEOUT=1）会把普通字符也替换掉，跳过
        .filter((e): e is [string, string] => isSecretName(e[0]) && typeof e[1] === 'string' && e[1].length >= 4)
        .sort((a, b) => b[1].length - a[1].length);   // 长的先换：一个值包含另一个值时不会只换一半
    for (const [name, value] of secrets) text = text.split(value).join(`[REDACTED:${name}]`);
    return text;
}
