// 第 14 天：轻量 RAG。一篇约 7000 字符的 notes.md，只有中间一节讲回滚。
import { call, tools } from '../../fake-model/replies.ts';
import { around, mark, showMessages, toolNames, toolResult } from '../look.ts';
import { Miss, type Check, type Scenario } from '../types.ts';

const SECTION = 'day15/README.md#第-14-天轻量-rag';

const ROLL = mark('ROLLMARK');
const section = (n: number) => `## 第 ${n} 节\n${`这一节说明配置项 option${n} 的写法与默认值，以及改了它之后要重启哪些服务。`.repeat(8)}\n`;
const DOC = [
    '# 运维手册\n本手册按节编排，每节一件事。\n',
    ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(section),
    `## 回滚\n要回滚（rollback）一次发布，运行 make undo-release，再确认版本号。暗号 ${ROLL}。\n`,
    ...[11, 12, 13, 14, 15, 16, 17, 18, 19, 20].map(section),
].join('\n');

const ADD = '把 notes.md 收进知识库';
const ASK = '回滚怎么做？';
const model = (searchId: string) => ({
    [ADD]: tools(call('call_ragadd_1', 'rag_add', { source: 'notes.md' })),
    [ASK]: tools(call(searchId, 'rag_search', { query: 'rollback 回滚' })),
});

const RAG: Scenario = {
    lines: [ADD, 'y', ASK, '/exit'],   // y：收录前的确认
    files: { 'notes.md': DOC },
    model: model('call_rags_1'),
    then: { lines: [ASK, '/exit'], model: model('call_rags_2') },
};

export const checks: Check[] = [
    {
        day: 14,
        name: 'rag_add 收录一篇文档，rag_search 只取回相关的几段',
        hint: 'rag_add（参数 source）读文件、切成约 800 字符的块存起来；rag_search（参数 query）用 BM25 给所有块打分，只返回最相关的几块（不是整篇）',
        section: SECTION,
        scenario: RAG,
        expect(first) {
            const found = toolResult(first, 'call_rags_1');
            if (!found?.includes(ROLL) || found.length > DOC.length / 2) {
                throw new Miss(`收录 notes.md（${DOC.length} 个字符）后，rag_search「rollback 回滚」返回讲回滚的那一段（含 ${ROLL}），不是整篇`,
                    found === undefined ? showMessages(first.requests.at(-1)) : `rag_add：${toolResult(first, 'call_ragadd_1') ?? '（没有结果）'}\nrag_search（${found.length} 个字符）：${around(found, ROLL)}`);
            }
        },
    },
    {
        day: 14,
        name: '知识库存在磁盘上：重启后还能检索',
        hint: '收录的块写进 .geekagent/rag/index.json 之类的文件，启动时读回来',
        section: SECTION,
        scenario: RAG,
        expect(run) {
            const second = run.then!;
            const found = toolResult(second, 'call_rags_2');
            if (!found?.includes(ROLL)) {
                throw new Miss(`重启后 rag_search「rollback 回滚」仍返回讲回滚的那一段（含 ${ROLL}）`, found === undefined ? showMessages(second.requests.at(-1)) : `工具结果：${found}`);
            }
        },
    },
    {
        day: 14,
        name: 'rag_add 先问你：答 n 时不收录',
        hint: '收录会读文件或联网，内容以后会进模型的上下文：执行前先问用户，答的不是 y 就返回「已取消」，什么也不存',
        section: SECTION,
        scenario: { lines: [ADD, 'n', ASK, '/exit'], files: { 'notes.md': DOC }, model: model('call_rags_3') },
        expect(run) {
            const found = toolResult(run, 'call_rags_3');
            if (!toolNames(run.requests[0]).includes('rag_add')) throw new Miss('请求的 tools 里有 rag_add', `tools：${toolNames(run.requests[0]).join('、') || '（没有）'}`);
            if (found === undefined || found.includes(ROLL)) {
                throw new Miss('答 n 之后知识库里没有 notes.md：rag_search 找不到讲回滚的那一段', found === undefined ? showMessages(run.requests.at(-1)) : `rag_add：${toolResult(run, 'call_ragadd_1') ?? '（没有结果）'}\nrag_search：${around(found, ROLL)}`);
            }
        },
    },
];
