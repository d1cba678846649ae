// 最多 size 件事同时做：检查同一天的几项、测试里同时跑的几个检查，都用这一个。
//   const limit = limiter(3);   await Promise.all(jobs.map((job) => limit(job)));

export function limiter(size: number): <T>(job: () => Promise<T>) => Promise<T> {
    let active = 0;
    const waiting: Array<() => void> = [];
    return async <T>(job: () => Promise<T>): Promise<T> => {
        while (active >= size) await new Promise<void>((resolve) => waiting.push(resolve));
        active++;
        try {
            return await job();
        } finally {
            active--;
            waiting.shift()?.();
        }
    };
}
