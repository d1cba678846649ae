// 第 6 天：命名对话存盘。/new <id> 新建并切换、/open <id> 切换、退出时自动保存、/load 从磁盘恢复。
import { contentOf, mark, messagesOf, requestFor, showMessages } from '../look.ts';
import { Miss, type Check } from '../types.ts';

const SECTION = 'day08/README.md#第-6-天命名对话存盘';

const users = (body: any): string[] => messagesOf(body).filter((m) => m.role === 'user').map(contentOf);
const [ONE, TWO, THREE] = [mark('ONE'), mark('TWO'), mark('THREE')];
const SAVED = mark('SAVED');

export const checks: Check[] = [
    {
        day: 6,
        name: '/new 开一个空对话，/open 切回原来的对话接着聊',
        hint: '对话表：id → 消息数组。/new <id> 把当前历史存回表里、换成一个空数组；/open <id> 换成表里那个对话的数组',
        section: SECTION,
        scenario: { lines: ['/new chk-one', ONE, '/new chk-two', TWO, '/open chk-one', THREE, '/exit'] },
        expect(run) {
            const second = requestFor(run, TWO);
            const third = requestFor(run, THREE);
            if (!second || users(second).join() !== TWO) {
                throw new Miss(`/new chk-two 之后「${TWO}」的请求里只有这一句（没有 chk-one 里的「${ONE}」）`, second ? showMessages(second) : '没有这个请求');
            }
            if (!third || users(third).join() !== [ONE, THREE].join()) {
                throw new Miss(`/open chk-one 之后「${THREE}」的请求里是 chk-one 的历史：「${ONE}」和它的回答，然后是「${THREE}」`, third ? showMessages(third) : '没有这个请求');
            }
        },
    },
    {
        day: 6,
        name: '退出时自动保存；下次启动 /load、/open 接着聊',
        hint: '退出流程里把所有对话写进 .geekagent/sessions.json（先写临时文件再 rename）；/load 读回来，/open <id> 切过去',
        section: SECTION,
        scenario: { lines: ['/new chk-saved', SAVED, '/exit'], then: { lines: ['/load', '/open chk-saved', '接着聊', '/exit'] } },
        expect(run) {
            const second = run.then!;
            const next = requestFor(second, '接着聊');
            if (!next || !users(next).includes(SAVED)) {
                throw new Miss(`第一次运行在 chk-saved 里说了「${SAVED}」后 /exit；第二次运行 /load、/open chk-saved 之后，「接着聊」的请求里有这一句`,
                    next ? showMessages(next) : `第二次运行没有「接着聊」的请求；stdout：${second.stdout.slice(-300)}`);
            }
        },
    },
];
