#!/usr/bin/env node
import { setMaxListeners } from 'node:events';
import { runCli } from './cli.js';

// The `asset-store` bin: a thin shell around runCli. The first Ctrl-C (or SIGTERM) stops
// cleanly: no new file is started, uploads in flight finish or pause; a second one gives
// up what is in flight (the store keeps none of it).
const stop = new AbortController();
const abort = new AbortController();
// Every request and file read in flight listens to these: `--concurrency` bounds them.
setMaxListeners(0, stop.signal, abort.signal);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => (stop.signal.aborted ? abort.abort() : stop.abort()));
}
// A reader that went away (`asset-store ls --json | head -1`) ends the run quietly.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
// `pnpm --filter asset-store cli …` runs in this package's folder; the paths a person types
// mean the folder they typed them in, which pnpm names in INIT_CWD.
if (process.env.npm_lifecycle_event === 'cli' && process.env.INIT_CWD) {
  process.chdir(process.env.INIT_CWD);
}
// `pnpm cli -- upload …`, the npm habit, hands the `--` on under pnpm 10: it is not an argument.
const args = process.argv.slice(2);
if (args[0] === '--') args.shift();
const code = await runCli(args, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  binaryOut: process.stdout,
  env: process.env,
  isTTY: process.stderr.isTTY,
  progressStream: process.stderr,
  stop: stop.signal,
  abort: abort.signal,
});
process.exitCode = code;
