// 第 13 天：BM25 记忆召回。第一次运行用 memory_write 记下几条记忆，第二次启动（同一个文件夹）再问。
import { call, tools } from '../../fake-model/replies.ts';
import { contentOf, mark, messagesOf, requestFor, showMessages, systemText, toolResult } from '../look.ts';
import { Miss, type Check, type Scenario } from '../types.ts';

const SECTION = 'day15/README.md#第-13-天bm25-记忆召回';

// 召回用的是章节里的例子：整句中文「测试命令是什么？」，要靠相邻两字的二元词才对得上
const TOKEN = `check${mark('').toLowerCase()}`;
const FACT = `项目的测试命令是 npm run ${TOKEN}`;
const ASK = '测试命令是什么？';
const UNRELATED = '今天天气怎么样';
// 排序：alpha、beta 在五条里都有（常见词），zebra… 只在一条里（稀有词）。只数命中几个词时 alpha beta 的条目排在前面
const RARE = `zebra${mark('').toLowerCase()}`;
const COMMON = [1, 2, 3, 4, 5].map((n) => `alpha beta 第 ${n} 条：提交信息写中文，缩进用空格`);
const SPECIAL = `${RARE} 第 6 条：发布之前先打标签`;
const SEARCH = '按关键词查一下记忆';

const WRITES = [FACT, ...COMMON, SPECIAL].map((content, i) => call(`call_memw_${i + 1}`, 'memory_write', { content }));
const RECALL: Scenario = {
    lines: ['把这几件事记下来', '/exit'],
    model: { '记下来': tools(...WRITES) },
    then: {
        lines: [ASK, UNRELATED, SEARCH, '/exit'],
        model: { [SEARCH]: tools(call('call_mems_1', 'memory_search', { query: `alpha beta ${RARE}` })) },
    },
};

export const checks: Check[] = [
    {
        day: 13,
        name: '每轮自动召回：和这句话相关的记忆进了这一轮的系统提示',
        hint: '每轮开始前用用户这句话在记忆里做 BM25 检索（中文切成相邻两字的二元词），命中的放进这一轮请求的 system 消息',
        section: SECTION,
        scenario: RECALL,
        expect(run) {
            const second = run.then!;
            const body = requestFor(second, ASK);
            if (!systemText(body).includes(TOKEN)) {
                throw new Miss(`问「${ASK}」时，这一轮的 system 消息里有记忆「${FACT}」`, showMessages(body));
            }
        },
    },
    {
        day: 13,
        name: '召回只在这一轮：下一句不相关的话，请求里没有它',
        hint: '召回的记忆只拼进这一轮的系统提示，不要写进历史（也不要附在用户消息上）；每轮按当轮的话重新检索',
        section: SECTION,
        scenario: RECALL,
        expect(run) {
            const second = run.then!;
            if (!systemText(requestFor(second, ASK)).includes(TOKEN)) throw new Miss(`先要有召回：问「${ASK}」时 system 消息里有「${FACT}」`, showMessages(requestFor(second, ASK)));
            const body = requestFor(second, UNRELATED);
            if (!body || messagesOf(body).some((m) => contentOf(m).includes(TOKEN))) {
                throw new Miss(`问「${UNRELATED}」时，请求里（系统提示和历史）都没有上一轮召回的「${FACT}」`, showMessages(body));
            }
        },
    },
    {
        day: 13,
        name: 'memory_search 按 BM25 排序：稀有的词比常见的词重要',
        hint: '打分用 BM25：每个词乘以 idf（出现在越少条目里越高），而不是数命中了几个词；按分数从高到低返回',
        section: SECTION,
        scenario: RECALL,
        expect(run) {
            const second = run.then!;
            const result = toolResult(second, 'call_mems_1');
            // 找条目自己的文字：结果开头可能回显查询词
            const rare = result?.indexOf('发布之前先打标签') ?? -1;
            const common = result?.indexOf('提交信息写中文') ?? -1;
            if (rare < 0 || (common >= 0 && common < rare)) {
                throw new Miss(`memory_search「alpha beta ${RARE}」把只有一条含有的「${SPECIAL}」排在第一（alpha、beta 五条里都有）`, `工具结果：${result ?? '（没有）'}`);
            }
        },
    },
];
