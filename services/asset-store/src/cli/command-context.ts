import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import type { StoreClient } from './store-client.js';

/** What every command's action gets from the program around it. */
export interface CommandContext {
  io: CliIo;
  /** A client for the store named by `--url`/`--token` (or their env), closed at exit. */
  client(cmd: Command, connections?: number): StoreClient;
  /** Whether `--json` was given (before or after the command name). */
  json(cmd: Command): boolean;
  /** Prints a value: one JSON line with `--json`, indented JSON otherwise. */
  print(cmd: Command, value: unknown): void;
  /** The exit code of a run that did not throw. */
  setCode(code: number): void;
}
