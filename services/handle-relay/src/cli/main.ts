#!/usr/bin/env node
import { runCli } from './cli.js';

// The `handle-relay` bin: a thin shell around runCli so tests can run it in-process too.
// `listen` runs until interrupted; a signal ends it cleanly (exit 0) instead of killing it.
// `pnpm --filter handle-relay cli …` runs in this package's folder; the paths a person types
// (--key, --pins) mean the folder they typed them in, which pnpm names in INIT_CWD.
if (process.env.npm_lifecycle_event === 'cli' && process.env.INIT_CWD) {
  process.chdir(process.env.INIT_CWD);
}
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  signal: stop.signal,
});
process.exitCode = code;
