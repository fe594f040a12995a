#!/usr/bin/env node
import { runCli } from './cli.js';

// The `handle-relay` bin: a thin shell around runCli so tests can run it in-process too.
// `listen` runs until interrupted; a signal ends it cleanly (exit 0) instead of killing it.
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  signal: stop.signal,
});
process.exitCode = code;
