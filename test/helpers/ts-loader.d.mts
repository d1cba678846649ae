// ts-loader.mjs 给 TypeScript 看的类型（它本身是 JS：加载 .ts 的东西不能是 .ts）
export function transpile(file: string, source: string, toJs?: boolean): string;
export function warm(): void;
