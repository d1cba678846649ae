// 返回一段很长的文字，配置里显式传进来的 ECHO_VALUE 正好跨过 Agent 截断 MCP 结果的位置（PAD 个字符之后）
import { serve, text, tool } from './lib.mjs';

const pad = Number(process.env.ECHO_PAD ?? 0);
serve({ tools: [tool('echo')], call: () => text('.'.repeat(pad) + (process.env.ECHO_VALUE ?? '') + ' 结束') });
