// 各种内容块，检查客户端的文字转换
import { serve } from './lib.mjs';

const png = Buffer.alloc(68, 1).toString('base64');
const results = {
    image: { content: [{ type: 'text', text: '一张图：' }, { type: 'image', data: png, mimeType: 'image/png' }] },
    audio: { content: [{ type: 'audio', data: Buffer.alloc(10).toString('base64'), mimeType: 'audio/wav' }] },
    link: { content: [{ type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' }] },
    res_text: { content: [{ type: 'resource', resource: { uri: 'mem://note', text: '资源正文' } }] },
    res_blob: { content: [{ type: 'resource', resource: { uri: 'mem://bin', blob: Buffer.alloc(5).toString('base64'), mimeType: 'application/octet-stream' } }] },
    structured: { content: [], structuredContent: { answer: 42 } },
    text_and_structured: { content: [{ type: 'text', text: '文本优先' }], structuredContent: { ignored: true } },
    empty: { content: [] },
    error: { content: [{ type: 'text', text: '出错了：参数不对' }], isError: true },
    error_empty: { content: [], isError: true },
    unknown: { content: [{ type: 'hologram' }], annotations: { x: 1 } },
    long: { content: [{ type: 'text', text: 'y'.repeat(30000) }] },
};
serve({
    tools: Object.keys(results).map((name) => ({ name, inputSchema: { type: 'object', properties: {} } })),
    call: (name) => results[name] ?? { content: [{ type: 'text', text: `unknown tool: ${name}` }], isError: true },
});
