// 仓库的规矩之一：相对 import 写 .ts 文件自己的名字（./chat.ts），node 才能直接跑（Node 22.18 起只去掉类型，
// 不会把 ./chat.js 映射到 chat.ts；只有 tsx 会）。tsc 拒绝不了指向 .ts 文件的 ./x.js，所以由这里找出来：
// test/repo/rules.test.ts 查整个仓库，test/repo/plain-node.test.ts 在临时目录里证明它查得出来。
// 用 TypeScript 的解析器而不是正则：import … from、export … from、import()、import() 类型一个都漏不掉。
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** 说明符是以 ./ 或 ../ 开头的 .js / .mjs，磁盘上没有这个文件、却有同名的 .ts / .mts 时，返回它该写成的样子。 */
function meantTs(file: string, spec: string): string | undefined {
    const m = /^\.\.?\/.*\.(m?)js$/.exec(spec);
    if (!m) return undefined;
    const target = path.resolve(path.dirname(file), spec);
    const ext = m[1] === 'm' ? '.mts' : '.ts';
    if (fs.existsSync(target) || !fs.existsSync(target.replace(/\.m?js$/, ext))) return undefined;
    return spec.replace(/\.m?js$/, ext);
}

/** root 下这些文件（相对路径）里指向 .ts 文件的 .js 说明符，每处一行「文件:行：'./x.js' 应写成 './x.ts'」。 */
export function jsSpecifiersToTs(root: string, files: string[]): string[] {
    const found: string[] = [];
    for (const rel of files) {
        const file = path.join(root, rel);
        const kind = rel.endsWith('.mjs') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
        const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, kind);
        const check = (lit: ts.Node) => {
            if (!ts.isStringLiteralLike(lit)) return;
            const want = meantTs(file, lit.text);
            if (want) found.push(`${rel}:${sf.getLineAndCharacterOfPosition(lit.getStart(sf)).line + 1}：'${lit.text}' 应写成 '${want}'`);
        };
        const visit = (node: ts.Node) => {
            if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) check(node.moduleSpecifier);
            else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments.length) check(node.arguments[0]);
            else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) check(node.argument.literal);
            ts.forEachChild(node, visit);
        };
        visit(sf);
    }
    return found;
}
