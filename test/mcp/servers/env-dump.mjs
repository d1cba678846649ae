// 把自己的环境变量和工作目录作为结果返回（server-everything 的 get-env 也会这样泄露环境）
import { serve, text, tool } from './lib.mjs';

serve({ tools: [tool('env')], call: () => text(JSON.stringify({ env: process.env, cwd: process.cwd(), argv: process.argv.slice(2) })) });
