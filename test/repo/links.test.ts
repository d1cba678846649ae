// 仓库里 Markdown 的相对链接都有着落：文件存在，#锚点是那个文件里真有的标题或 <a id> 别名。
// 课的「教学边界」链接到加固版章节的某一节（../hardened/README.md#…），章节改名时这里先发现。
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { anchors } from '../helpers/markdown.ts';
import { REPO_ROOT } from '../helpers/run-stage.ts';

/** 一个 Markdown 文件里的相对链接（代码块里的不算）。 */
function linksIn(text: string): string[] {
    const out: string[] = [];
    let fenced = false;
    for (const line of text.split('\n')) {
        if (line.startsWith('```')) fenced = !fenced;
        if (!fenced) for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) if (!/^[a-z]+:/.test(m[1])) out.push(m[1]);
    }
    return out;
}

test('Markdown 的相对链接都指向存在的文件和锚点（课的「教学边界」指向加固版章节的那一节）', () => {
    const files = execFileSync('git', ['ls-files', '*.md'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    const bad: string[] = [];
    let checked = 0;
    for (const file of files.filter((f) => fs.existsSync(path.join(REPO_ROOT, f)))) {
        for (const link of linksIn(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'))) {
            const [target, anchor] = link.split('#');
            const resolved = target ? path.join(REPO_ROOT, path.dirname(file), decodeURIComponent(target)) : path.join(REPO_ROOT, file);
            checked++;
            if (!fs.existsSync(resolved)) bad.push(`${file}：${link}（没有这个文件）`);
            else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(fs.readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor))) {
                bad.push(`${file}：${link}（没有这个锚点）`);
            }
        }
    }
    assert.ok(checked > 20, `只找到 ${checked} 个链接`);
    assert.deepEqual(bad, []);
});
