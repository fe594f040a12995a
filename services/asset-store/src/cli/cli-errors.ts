import path from 'node:path';
import { ApiError } from '../client/index.js';

/** The store answered with an error envelope (or something that was not one): the client's. */
export { ApiError };

/** The CLI's exit codes: 0 done, 1 something failed, 2 a usage mistake, 130 interrupted. */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

/** A command line the CLI cannot run (exit 2). */
export class UsageError extends Error {}

/** A check on the client's side failed, for example a download whose digest differs. */
export class CliError extends Error {}

/** The run was stopped by Ctrl-C (or SIGTERM) before it finished. */
export class InterruptedError extends Error {
  constructor() {
    super('interrupted');
  }
}

/** Connection failures: the store named by `--url` is not there (or not reachable). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** One line for stderr saying what went wrong; `store` (the URL tried) names the store that answered or could not be reached. */
export function describeError(err: unknown, store?: string): string {
  if (err instanceof ApiError) {
    return store === undefined
      ? `${err.status}: ${err.message}`
      : `${store} answered ${err.status}: ${err.message}`;
  }
  if (err instanceof Error) {
    // undici and Node put the reason for a refused connection in `cause` or `code`.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const code = (err as { code?: string }).code ?? cause?.code;
    if (code !== undefined && UNREACHABLE.has(code)) {
      const at = store === undefined ? '' : ` at ${store}`;
      return `cannot reach the store${at} (${cause?.message ?? err.message})`;
    }
    // A file system error names the path as given; the absolute one says which folder.
    const { path: file, syscall } = err as NodeJS.ErrnoException;
    if (syscall !== undefined && typeof file === 'string' && !path.isAbsolute(file)) {
      return err.message.replace(file, path.resolve(file));
    }
    return err.message;
  }
  return String(err);
}
