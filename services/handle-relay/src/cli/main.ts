#!/usr/bin/env node
import { runCli } from './cli.js';

// The `handle-relay` bin: a thin shell around runCli so tests can run it in-process too.
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
});
process.exitCode = code;
