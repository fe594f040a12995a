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

/** One line for stderr saying what went wrong. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return `${err.status}: ${err.message}`;
  if (err instanceof Error) {
    // undici and Node put the reason for a refused connection in `cause` or `code`.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const code = (err as { code?: string }).code ?? cause?.code;
    if (code === 'ECONNREFUSED') return `cannot reach the store (${cause?.message ?? err.message})`;
    return err.message;
  }
  return String(err);
}
