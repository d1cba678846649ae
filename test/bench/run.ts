// npm run bench：依次运行 test/bench/ 下的所有 *.bench.ts（不属于 npm test）。
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).sort()) {
    if (only && !file.includes(only)) continue;
    console.log(`\n=== ${file}`);
    const mod = await import(pathToFileURL(path.join(dir, file)).href);
    await mod.run();
}
