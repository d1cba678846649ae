// 各种不规范的 inputSchema
import { serve } from './lib.mjs';

serve({
    tools: [
        { name: 'no_schema' },
        { name: 'bare_object', inputSchema: { type: 'object' } },
        { name: 'with_dollar', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'missing'] } },
        { name: 'odd_props', inputSchema: { type: 'object', properties: { ok: { type: 'number' }, yes: true, no: false, bad: 'string', arr: [1] } } },
        { name: 'root_array', inputSchema: { type: 'array', items: { type: 'string' } } },
        { name: 'type_list', inputSchema: { type: ['object', 'null'], properties: { n: { type: ['boolean', 'string'], maximum: 9007199254740991 } } } },
        { name: 'null_schema', inputSchema: null },
    ],
});
