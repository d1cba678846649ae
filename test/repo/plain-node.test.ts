// node 直接跑 .ts（Node 22.18 起）只去掉类型：参数属性、enum、namespace 这类要生成代码的写法它不认，
// import './x.js' 它也不会换成 x.ts。仓库靠两样东西守住：npm run typecheck 的设置（tsconfig.json 的 erasableSyntaxOnly、
// verbatimModuleSyntax），和 rules.test.ts 里查说明符的规矩。这里在临时目录里证明两样都真的拦得住，也放得过对的写法。
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { REPO_ROOT } from '../helpers/run-stage.ts';
import { jsSpecifiersToTs } from '../helpers/specifiers.ts';
import { workdir } from '../helpers/workdir.ts';

const TSC = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** 用仓库的 tsconfig.json（extends）检查一个临时文件夹里的 .ts，和 npm run typecheck 的设置相同。 */
function typecheck(files: Record<string, string>): { ok: boolean; output: string } {
    const config = { extends: path.join(REPO_ROOT, 'tsconfig.json'), compilerOptions: { types: [] }, include: ['*.ts'] };
    const dir = workdir({ ...files, 'tsconfig.json': JSON.stringify(config) });
    const r = spawnSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8' });
    return { ok: r.status === 0, output: r.stdout + r.stderr };
}

const TYPES = 'export interface Config { model: string }\nexport const DEFAULT = \'m\';\n';

describe('node 能直接跑的写法', () => {
    test('npm run typecheck 拒绝参数属性和没写 import type 的类型导入，放过改好的写法', () => {
        const bad = typecheck({
            'types.ts': TYPES,
            'chat.ts': 'import { Config } from \'./types.ts\';\nexport class Chat {\n    constructor(private readonly cfg: Config) {}\n}\n',
        });
        assert.equal(bad.ok, false, bad.output);
        assert.match(bad.output, /chat\.ts\(3,\d+\): error TS1294: This syntax is not allowed when 'erasableSyntaxOnly' is enabled/);
        assert.match(bad.output, /chat\.ts\(1,\d+\): error TS1484: 'Config' is a type and must be imported using a type-only import/);

        const good = typecheck({
            'types.ts': TYPES,
            'chat.ts': 'import type { Config } from \'./types.ts\';\nexport class Chat {\n    private readonly cfg: Config;\n'
                + '    constructor(cfg: Config) { this.cfg = cfg; }\n}\n',
        });
        assert.equal(good.ok, true, good.output);
    });

    test('仓库的规矩找出指向 .ts 文件的相对 .js 说明符，别的不管', () => {
        const dir = workdir({
            'b.ts': 'export const b = 1;\nexport type B = number;\n',
            'real.js': 'export const r = 1;\n',
            'a.ts': [
                "import { b } from './b.js';",                  // 指向 b.ts：要查出来
                "import { r } from './real.js';",               // 真有 real.js：不管
                "import { b as b2 } from './b.ts';",            // 写对了
                "import fs from 'node:fs';",
                "export * from './b.js';",                      // export … from 也算
                "export const c = await import('./b.js');",     // import() 也算
                "export type T = import('./b.js').B;",          // import() 类型也算
                "export const text = './b.js';",                // 只是字符串：不管
                'console.log(b, r, b2, fs);',
            ].join('\n'),
            'm.mjs': "import { b } from './b.js';\n",
        });
        assert.deepEqual(jsSpecifiersToTs(dir, ['a.ts', 'b.ts', 'm.mjs']), [
            "a.ts:1：'./b.js' 应写成 './b.ts'",
            "a.ts:5：'./b.js' 应写成 './b.ts'",
            "a.ts:6：'./b.js' 应写成 './b.ts'",
            "a.ts:7：'./b.js' 应写成 './b.ts'",
            "m.mjs:1：'./b.js' 应写成 './b.ts'",
        ]);
    });
});
