// —— 加固：JSON 的形状检查 ——
// Day 8：从文件、服务器读进来的 JSON 先当作 unknown：确认是普通对象（不是 null、不是数组）再取字段。
export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
