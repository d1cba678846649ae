// tools/list 分三页；REPEAT=1 时第二页之后总是返回同一个游标（客户端必须自己停下）
import { serve, tool } from './lib.mjs';

const repeat = process.env.REPEAT === '1';
serve({
    list({ cursor }) {
        if (repeat) return { tools: [tool(`loop_${cursor ?? 'start'}`)], nextCursor: 'same' };
        if (cursor === undefined) return { tools: [tool('p1_a'), tool('p1_b')], nextCursor: 'page-2' };
        if (cursor === 'page-2') return { tools: [tool('p2_a')], nextCursor: 'page-3' };
        return { tools: [tool('p3_a'), tool('p3_b')], nextCursor: '' };
    },
});
