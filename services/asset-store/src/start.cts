/**
 * The process entry: `node dist/src/start.cjs`. Every upload ends in fsyncs, which hold a
 * libuv pool thread each; with libuv's default 4, a few concurrent large uploads stall
 * every other file operation (a small download waits behind them; bench/NOTES.md).
 * libuv sizes the pool once, at its first use, and Node's ES module loader already reads
 * the entry module on it: set in an ES module entry, UV_THREADPOOL_SIZE comes too late. A
 * CommonJS entry is read synchronously, so this line runs before the pool starts.
 */
process.env.UV_THREADPOOL_SIZE ??= '16';
void import('./main.js');
