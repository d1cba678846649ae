// 不管客户端要什么版本，都回答一个不存在的版本
import { serve, tool } from './lib.mjs';

serve({ version: '1999-01-01', tools: [tool('never_listed')] });
