// node --import ./test/helpers/ts-register.mjs：之后 .ts 文件可以直接 import（钩子和缘由在 ts-loader.mjs）。
import { register } from 'node:module';

register('./ts-loader.mjs', import.meta.url);
