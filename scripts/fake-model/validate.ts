// 假模型校验请求的规则：像真实的 OpenAI 兼容 API 一样，不合格的请求体回 400。报文尽量照抄 OpenAI 的原话，方便和真实报错对照。
// 客户端的历史记录 bug（tool 消息没有对上的 tool_call_id、带 tool_calls 的 assistant 后面少了回答）在这里立刻暴露。
type Json = Record<string, any>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'];

// 返回错误信息，合法时返回 null。报文尽量照抄 OpenAI 的原话，方便和真实报错对照
export function validateChatBody(body: unknown): string | null {
    if (!isObj(body)) return `Invalid type for request body: expected an object, but got ${typeName(body)} instead.`;
    if (typeof body.model !== 'string' || body.model === '') return 'you must provide a model parameter';
    if (body.messages === undefined) return "Missing required parameter: 'messages'.";
    if (!Array.isArray(body.messages)) return `Invalid type for 'messages': expected an array, but got ${typeName(body.messages)} instead.`;
    if (body.messages.length === 0) return "[] is too short - 'messages'";
    const problem = checkMessages(body.messages) ?? checkTools(body);
    if (problem) return problem;
    if (body.stream !== undefined && typeof body.stream !== 'boolean') {
        return `Invalid type for 'stream': expected a boolean, but got ${typeName(body.stream)} instead.`;
    }
    if (body.stream_options !== undefined && body.stream !== true) {
        return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
    }
    return null;
}

function missingAnswers(ids: string[]): string {
    return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "
        + `The following tool_call_ids did not have response messages: ${ids.join(', ')}`;
}

function checkMessages(messages: unknown[]): string | null {
    let pending: string[] | null = null; // 上一条带 tool_calls 的 assistant 还没被回答的 id
    for (const [i, m] of messages.entries()) {
        const at = `messages[${i}]`;
        if (!isObj(m)) return `Invalid type for '${at}': expected an object, but got ${typeName(m)} instead.`;
        if (!ROLES.includes(m.role)) {
            return `Invalid value: '${String(m.role)}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`;
        }
        if (m.role === 'tool') {
            if (typeof m.tool_call_id !== 'string') return `Invalid type for '${at}.tool_call_id': expected a string, but got ${typeName(m.tool_call_id)} instead.`;
            if (typeof m.content !== 'string') return `Invalid type for '${at}.content': expected a string, but got ${typeName(m.content)} instead.`;
            if (!pending?.includes(m.tool_call_id)) {
                return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
            }
            pending = pending.filter((id) => id !== m.tool_call_id);
            continue;
        }
        if (pending?.length) return missingAnswers(pending);
        pending = null;
        if (m.role !== 'assistant') {
            if (typeof m.content !== 'string') return `Invalid type for '${at}.content': expected a string, but got ${typeName(m.content)} instead.`;
            continue;
        }
        const problem = checkAssistant(m, at);
        if (problem) return problem;
        if (m.tool_calls != null) pending = m.tool_calls.map((call: Json) => call.id);
    }
    return pending?.length ? missingAnswers(pending) : null;
}

function checkAssistant(m: Json, at: string): string | null {
    if (m.content != null && typeof m.content !== 'string') {
        return `Invalid type for '${at}.content': expected a string, but got ${typeName(m.content)} instead.`;
    }
    if (m.reasoning_content != null && typeof m.reasoning_content !== 'string') {
        return `Invalid type for '${at}.reasoning_content': expected a string, but got ${typeName(m.reasoning_content)} instead.`;
    }
    const calls = m.tool_calls;
    if (calls == null) {
        return m.content == null ? "Invalid value for 'content': expected a string, got null." : null;
    }
    if (!Array.isArray(calls)) return `Invalid type for '${at}.tool_calls': expected an array, but got ${typeName(calls)} instead.`;
    if (calls.length === 0) return `[] is too short - '${at}.tool_calls'`;
    const seen = new Set<string>();
    for (const [j, call] of calls.entries()) {
        const c = `${at}.tool_calls[${j}]`;
        if (!isObj(call)) return `Invalid type for '${c}': expected an object, but got ${typeName(call)} instead.`;
        if (typeof call.id !== 'string') return `Invalid type for '${c}.id': expected a string, but got ${typeName(call.id)} instead.`;
        if (call.id === '') return `Invalid '${c}.id': empty string. Expected a string with minimum length 1, but got an empty string instead.`;
        if (seen.has(call.id)) return `Invalid '${at}.tool_calls': duplicate tool call id '${call.id}'.`;
        seen.add(call.id);
        if (call.type !== 'function') return `Invalid value for '${c}.type': expected 'function'.`;
        if (!isObj(call.function) || typeof call.function.name !== 'string' || call.function.name === '') {
            return `Missing required parameter: '${c}.function.name'.`;
        }
        if (typeof call.function.arguments !== 'string') {
            return `Invalid type for '${c}.function.arguments': expected a string, but got ${typeName(call.function.arguments)} instead.`;
        }
    }
    return null;
}

function checkTools(body: Json): string | null {
    const names = new Set<string>();
    const tools = body.tools;
    if (tools !== undefined) {
        if (!Array.isArray(tools)) return `Invalid type for 'tools': expected an array, but got ${typeName(tools)} instead.`;
        if (tools.length === 0) return "[] is too short - 'tools'";
        if (tools.length > 128) {
            return `Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length ${tools.length} instead.`;
        }
        for (const [j, tool] of tools.entries()) {
            const at = `tools[${j}]`;
            if (!isObj(tool) || tool.type !== 'function' || !isObj(tool.function)) {
                return `Invalid value for '${at}': expected {"type": "function", "function": {...}}.`;
            }
            const name = tool.function.name;
            if (typeof name !== 'string') return `Missing required parameter: '${at}.function.name'.`;
            if (!TOOL_NAME.test(name)) {
                return `Invalid '${at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.`;
            }
            if (names.has(name)) return `Invalid 'tools': duplicate function name '${name}'.`;
            names.add(name);
            const params = tool.function.parameters;
            if (params !== undefined && (!isObj(params) || params.type !== 'object')) {
                const got = isObj(params) ? String(params.type ?? 'None') : typeName(params);
                return `Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${got}"'.`;
            }
            const deep = schemaProblem(params, name, []);
            if (deep) return deep;
        }
    }
    for (const key of ['tool_choice', 'parallel_tool_calls']) {
        if (body[key] !== undefined && tools === undefined) {
            return `Invalid value for '${key}': '${key}' is only allowed when 'tools' are specified.`;
        }
    }
    const choice = body.tool_choice;
    if (choice === undefined || choice === 'none' || choice === 'auto' || choice === 'required') return null;
    if (!isObj(choice) || choice.type !== 'function' || !isObj(choice.function) || typeof choice.function.name !== 'string') {
        return `Invalid value for 'tool_choice': ${JSON.stringify(choice)}. Supported values are: 'none', 'auto', 'required', or {"type": "function", "function": {"name": ...}}.`;
    }
    if (!names.has(choice.function.name)) {
        return `Invalid value for 'tool_choice': tool choice '${choice.function.name}' not found in 'tools' parameter.`;
    }
    return null;
}

// 参数模式里真实 API 拒绝的写法（不开 strict 也拒绝）：任何一层的 propertyNames、没有 items 的数组。
// 只沿着子模式往下走：properties 的键是属性名，default、enum 之类是数据，都不当关键字检查
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SCHEMA_ONE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'];

function schemaProblem(schema: unknown, fn: string, context: string[]): string | null {
    if (!isObj(schema)) return null;
    const where = `Invalid schema for function '${fn}': In context=(${context.map((c) => `'${c}'`).join(', ')}), `;
    if ('propertyNames' in schema) return `${where}'propertyNames' is not permitted.`;
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (types.includes('array') && schema.items === undefined) return `${where}array schema missing items.`;
    for (const [key, value] of Object.entries(schema)) {
        let subs: [string[], unknown][] = [];
        if (SCHEMA_MAPS.includes(key) && isObj(value)) subs = Object.entries(value).map(([k, v]) => [[key, k], v]);
        else if ((SCHEMA_LISTS.includes(key) || SCHEMA_ONE.includes(key)) && Array.isArray(value)) subs = value.map((v, i) => [[key, String(i)], v]);
        else if (SCHEMA_ONE.includes(key)) subs = [[[key], value]];
        for (const [path, sub] of subs) {
            const problem = schemaProblem(sub, fn, [...context, ...path]);
            if (problem) return problem;
        }
    }
    return null;
}

