// 第 10 天：AGENTS.md 和长期记忆。
import { call, tools } from '../../fake-model/replies.ts';
import { mark, requestFor, showMessages, systemText, toolResult } from '../look.ts';
import { Miss, type Check, type Scenario } from '../types.ts';

const SECTION = 'day11/README.md#第-10-天agentsmd-和长期记忆';

const RULE = mark('RULE');
const AGENTS: Scenario = {
    lines: ['你好', '再说一句', '/exit'],
    files: { 'AGENTS.md': `# 项目规矩\n- 代码缩进 4 个空格（${RULE}）\n` },
};

// 小写字母数字：第 10 天的关键词检索和第 13 天的 BM25 都把它当一个完整的词
const WORD = `zq${mark('').toLowerCase()}`;
const FACT = `用户最喜欢的词是 ${WORD}`;
const MEMORY: Scenario = {
    lines: [`记住：我最喜欢的词是 ${WORD}`, '/exit'],
    model: { '记住': tools(call('call_memw_1', 'memory_write', { content: FACT })) },
    then: {
        lines: ['我最喜欢哪个词？', '/exit'],
        model: { '最喜欢哪个词': tools(call('call_mems_1', 'memory_search', { query: WORD })) },
    },
};

export const checks: Check[] = [
    {
        day: 10,
        name: 'AGENTS.md 的内容在每个请求的系统提示里',
        hint: '启动时读工作目录里的 AGENTS.md；每次请求模型时把它拼进开头的 system 消息（不存进历史）',
        section: SECTION,
        scenario: AGENTS,
        expect(run) {
            for (const said of ['你好', '再说一句']) {
                const body = requestFor(run, said);
                if (!systemText(body).includes(RULE)) {
                    throw new Miss(`「${said}」这一轮的请求里，system 消息含有 AGENTS.md 的内容（${RULE}）`, showMessages(body));
                }
            }
        },
    },
    {
        day: 10,
        name: '长期记忆跨进程保留：这次 memory_write 记下的，下次启动 memory_search 找得到',
        hint: 'memory_write 把内容追加进 .geekagent/memory.json（字符串数组）并写盘；启动时读回来；memory_search 按关键词在里面找，把找到的条目作为工具结果返回',
        section: SECTION,
        scenario: MEMORY,
        expect(first) {
            const second = first.then!;
            if (toolResult(first, 'call_memw_1') === undefined) {
                throw new Miss('第一次运行：memory_write 的工具结果回到对话里', showMessages(first.requests.at(-1)));
            }
            const found = toolResult(second, 'call_mems_1');
            if (!found?.includes(WORD)) {
                throw new Miss(`重启后 memory_search「${WORD}」的结果里有上次记下的「${FACT}」`, found === undefined ? showMessages(second.requests.at(-1)) : `工具结果：${found}`);
            }
        },
    },
];
