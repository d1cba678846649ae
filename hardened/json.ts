// —— 加固：JSON 的形状检查 ——
// Day 8：从文件、服务器读进来的 JSON 先当作 unknown：确认是普通对象（不是 null、不是数组）再取字段。
export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

// Day 15：对方（MCP 服务器、模型）发来的 JSON 可以合法而任意深。JSON.parse 不怕（V8 不递归），
// 可 JSON.stringify、String()、逐层清理输入模式都是递归的：一行十万层的 [[[…]]] 会撑爆调用栈、让整个 Agent 退出。
// 递归处理对方的值之前先用 tooDeep 量一下（它自己不递归，量到上限就停）；100 层远超真实的输入模式和结果，又远在调用栈的极限以内
export const MAX_JSON_DEPTH = 100;

export function tooDeep(value: unknown): boolean {
    const stack: [unknown, number][] = [[value, 0]];
    while (stack.length > 0) {
        const [v, depth] = stack.pop()!;
        if (v === null || typeof v !== 'object') continue;
        if (depth >= MAX_JSON_DEPTH) return true;
        for (const child of Object.values(v)) stack.push([child, depth + 1]);
    }
    return false;
}

/** 对方的值写成文字（日志、提示里）：太深的不序列化，只说一句。 */
export function jsonText(value: unknown): string {
    return tooDeep(value) ? `（嵌套超过 ${MAX_JSON_DEPTH} 层，不显示）` : String(JSON.stringify(value));
}
