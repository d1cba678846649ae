// 一个「写文件」的工具：确认提示里要看得见每个参数，尤其是排在长 content 后面的 path
import { serve, text, tool } from './lib.mjs';

const schema = { type: 'object', properties: { content: { type: 'string' }, path: { type: 'string' } }, required: ['content', 'path'] };
serve({ tools: [tool('write_file', { inputSchema: schema })], call: (name, args) => text(`wrote ${args.path}`) });
