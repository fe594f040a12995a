import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Compares a request's `Authorization: Bearer` token with the accepted ones in constant
 * time: both sides are hashed first, so neither a length nor a prefix shows in the timing.
 */
export class BearerTokens {
  readonly #accepted: Buffer[];

  constructor(tokens: readonly (string | undefined)[]) {
    this.#accepted = tokens.filter((t): t is string => t !== undefined).map(digest);
  }

  /** Whether any token is configured at all. */
  get configured(): boolean {
    return this.#accepted.length > 0;
  }

  /** Whether the request carries one of the accepted tokens. */
  accepts(req: IncomingMessage): boolean {
    const match = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
    if (!match) return false;
    const given = digest(match[1]!);
    // Every candidate is compared, so the time does not tell which one matched.
    let ok = false;
    for (const token of this.#accepted) ok = timingSafeEqual(given, token) || ok;
    return ok;
  }
}
