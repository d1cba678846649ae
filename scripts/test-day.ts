// 只跑某一天的测试：npm run test:day -- 3
// 测这一天功能的几个测试文件：课的承诺（lessons.test.ts、sse-fixtures.test.ts 的重放）只在这一天所在的课上跑
// （GEEKAGENT_TEST_STAGE，见 test/helpers/run-stage.ts 的 stagesFrom），加固的测试照常在加固版上跑。
// 一个文件测的不止一天时（例如 tools.test.ts 测第 2–4 天），那几天都会跑它。
import { spawn, spawnSync } from 'node:child_process';
import { STAGE_DAYS } from './days.ts';
import { ROOT } from './stages.ts';

/** 每一天的测试文件（相对 test/）。要等十几秒的（mcp-progress）排在最前面，和别的文件同时跑。 */
const DAY_TESTS: Record<number, string[]> = {
    1: ['stages/lessons.test.ts', 'stages/chat.test.ts', 'stages/chat-errors.test.ts', 'stages/entry.test.ts', 'stages/sse-fixtures.test.ts', 'stages/screen.test.ts', 'stages/prompts-bidi.test.ts', 'stages/envtrust-dotenv.test.ts', 'stages/envtrust-pipe.test.ts', 'stages/trace.test.ts', 'stages/clean-trace-fifo.test.ts', 'stages/order-stderr.test.ts', 'stages/order-nokey.test.ts', 'stages/order-typeahead.test.ts', 'stages/faithful.test.ts', 'stages/hostile-files.test.ts'],
    2: ['stages/lessons.test.ts', 'stages/tools.test.ts', 'stages/sse-fixtures.test.ts'],
    3: ['stages/lessons.test.ts', 'stages/lessons-tty.test.ts', 'stages/tools.test.ts', 'stages/cancel.test.ts', 'stages/life.test.ts', 'stages/hostile-setsid.test.ts', 'stages/prompts-long.test.ts', 'stages/tty-cancel.test.ts', 'stages/tty-answer.test.ts'],
    4: ['stages/tools.test.ts', 'units/day04-units.test.ts', 'stages/hostile-glob.test.ts', 'stages/hostile-files.test.ts'],
    5: ['stages/compaction.test.ts'],
    6: ['stages/sessions.test.ts', 'stages/state.test.ts', 'stages/faithful.test.ts'],
    7: ['units/day08-screen.test.ts', 'tui/tui.test.ts', 'tui/term.test.ts', 'tui/tmux.test.ts', 'tui/screen-tmux.test.ts', 'tui/prompts-tmux.test.ts', 'tui/lessons-tmux.test.ts'],
    8: ['stages/safety.test.ts', 'stages/secrets.test.ts', 'stages/undo.test.ts', 'stages/trust.test.ts', 'stages/envtrust-answers.test.ts', 'stages/envtrust-write.test.ts', 'stages/clean-secrets.test.ts', 'stages/clean-state.test.ts', 'stages/prompts-secrets.test.ts', 'stages/hostile-folder.test.ts', 'stages/hostile-files.test.ts'],
    9: ['stages/planning.test.ts'],
    10: ['stages/memory.test.ts', 'stages/clean-instructions.test.ts', 'stages/hostile-folder.test.ts'],
    11: ['stages/skills.test.ts', 'stages/hostile-files.test.ts'],
    12: ['retrieval/search.test.ts', 'retrieval/web.test.ts', 'retrieval/html.test.ts', 'stages/hostile-fetch.test.ts', 'stages/prompts-fetch.test.ts', 'stages/hostile-files.test.ts'],
    13: ['retrieval/bm25.test.ts', 'stages/memory.test.ts'],
    14: ['stages/retrieval-e2e.test.ts', 'stages/hostile-folder.test.ts', 'stages/hostile-files.test.ts'],
    15: ['stages/mcp-progress.test.ts', 'stages/mcp-ready.test.ts', 'mcp/framing.test.ts', 'mcp/helpers.test.ts', 'mcp/mcp-client.test.ts', 'mcp/scale.test.ts', 'mcp/broken-servers.test.ts', 'mcp/handshake-timeout.test.ts', 'stages/mcp-agent.test.ts', 'stages/mcp-scale.test.ts', 'stages/mcp-hostile.test.ts', 'stages/prompts-secrets.test.ts'],
};

const day = Number(process.argv[2]);
const stage = Object.keys(STAGE_DAYS).find((s) => STAGE_DAYS[s].includes(day));
if (!stage || !DAY_TESTS[day]) {
    console.error(`用法：npm run test:day -- N（N 是 1–15 之间的一天，例如 npm run test:day -- 3）`);
    process.exit(2);
}
console.log(`第 ${day} 天的测试（课的承诺在 ${stage} 上，加固的测试在加固版上）：${DAY_TESTS[day].join('、')}`);
const files = DAY_TESTS[day].map((f) => `test/${f}`);
// 和 npm test 的 pretest 一样：先一次转好全部 .ts，测试进程不再各自加载 TypeScript
spawnSync(process.execPath, ['test/helpers/ts-loader.mjs'], { cwd: ROOT, stdio: 'inherit' });
const child = spawn(process.execPath, ['--import', './test/helpers/ts-register.mjs', '--enable-source-maps', '--test', '--test-concurrency=4', ...files], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, GEEKAGENT_TEST_STAGE: stage },
});
child.on('close', (code) => process.exit(code ?? 1));
