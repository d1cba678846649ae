// 启动即失败：写一行 stderr，以退出码 1 结束
// 被 `node --test test/` 误当成测试文件运行时直接成功退出（见 lib.mjs）
if (process.env.NODE_TEST_CONTEXT && !process.env.GEEKAGENT_TEST_MARK) process.exit(0);
process.stderr.write('crash-on-start：找不到配置文件，退出\n');
process.exit(1);
