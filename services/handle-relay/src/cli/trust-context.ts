import type { RelayClient } from '../client/http-client.js';
import { readKeyFile } from '../client/key-file.js';
import type { KeyPair } from '../client/keys.js';

/** What a trust command gets from the CLI. */
export interface TrustContext {
  client: RelayClient;
  keyFile: string;
  pinsFile: string;
  watch: readonly string[];
  accept: boolean;
  once: boolean;
  intervalMs: number;
  signal?: AbortSignal;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Thrown for a failed check: the CLI prints the reason and exits 1. */
export class CheckFailed extends Error {}

/** The key in `file`, or undefined when there is no such file. */
export async function readOptionalKey(file: string): Promise<KeyPair | undefined> {
  try {
    return await readKeyFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
