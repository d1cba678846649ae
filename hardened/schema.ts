// —— 加固：服务器的输入模式 ——
// Day 15：MCP 服务器的输入模式原样交给模型 API，而 OpenAI 兼容的 API 只认 JSON Schema 的一部分：
// 树里任何一层有一个不认的关键字，整个请求（连同其他所有工具）都被拒绝。这里先规范根（normalizeSchema），再清理整棵树：
// 只删确实被拒绝的关键字、补上缺的 items，其他（$ref、$defs、anyOf、format……）原样保留。
import { isObject, type Json } from './json.ts';

// 复制一份再改，不动服务器的对象；根必须是带 properties 的 object，否则 OpenAI 拒绝整个请求。根以下整棵树交给 sanitizeSchema
export function normalizeSchema(schema: unknown, note: (text: string) => void): Json {
    if (!isObject(schema)) return { type: 'object', properties: {} };
    const { $schema: _ignored, ...out } = schema;
    if (out.type === undefined || (Array.isArray(out.type) && out.type.includes('object'))) out.type = 'object';
    if (out.type !== 'object') {
        note('不可用的输入模式');
        return { type: 'object', properties: {} };
    }
    const properties: Json = {};
    for (const [key, value] of Object.entries(isObject(out.properties) ? out.properties : {})) {
        if (typeof value === 'boolean') properties[key] = {};
        else if (isObject(value)) properties[key] = value;
    }
    out.properties = properties;
    const required = Array.isArray(out.required)
        ? out.required.filter((r): r is string => typeof r === 'string' && Object.hasOwn(properties, r))
        : [];
    if (required.length > 0) out.required = required;
    else delete out.required;
    return sanitizeSchema(out);
}

// 被拒绝的关键字。只收真实报过错的，每条附上报错原文；要加新的一条，先拿到报错原文
const REJECTED_KEYWORDS = [
    // OpenAI（关掉 strict 也一样）：Invalid schema for function '…': In context=('properties', …),
    // 'propertyNames' is not permitted.  Gemini 的 API 同样拒绝
    'propertyNames',
];

// 值是「名字 → 子模式」的关键字：名字是用户的属性名（可能恰好叫 propertyNames），不能当关键字删
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
// 值是一个子模式、或子模式数组的关键字；default、const、enum、examples 是数据，不往里走
const SCHEMA_ONE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'];
const SCHEMA_LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];

function isArrayType(type: unknown): boolean {
    return type === 'array' || (Array.isArray(type) && type.includes('array'));
}

/** 返回清理后的副本，不动服务器的对象。非对象的子模式（true/false）原样保留。 */
export function sanitizeSchema(schema: Json): Json {
    const out: Json = {};
    for (const [key, value] of Object.entries(schema)) {
        if (REJECTED_KEYWORDS.includes(key)) continue;
        if (SCHEMA_MAPS.includes(key) && isObject(value)) {
            out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, sanitizeSub(sub)]));
        } else if ((SCHEMA_ONE.includes(key) || SCHEMA_LIST.includes(key)) && Array.isArray(value)) {
            out[key] = value.map(sanitizeSub);
        } else if (SCHEMA_ONE.includes(key)) {
            out[key] = sanitizeSub(value);
        } else {
            out[key] = value;
        }
    }
    // OpenAI：Invalid schema for function '…': In context=('properties', …), array schema missing items.
    // 空模式 {} 表示「元素任意」，与不写 items 的原意相同
    if (isArrayType(out.type) && out.items === undefined) out.items = {};
    return out;
}

const sanitizeSub = (sub: unknown): unknown => (isObject(sub) ? sanitizeSchema(sub) : sub);
