import type { IncomingHttpHeaders } from 'node:http';

/** What a precondition check decides: go on, or answer with 304 or 412 at once. */
export type PreconditionOutcome = 'proceed' | 'not-modified' | 'failed';

/** The validators of the representation being served. */
export interface Validators {
  /** The strong entity tag, quoted: `"<hash>"`. */
  etag: string;
  /** Last modification, epoch milliseconds (HTTP dates have whole seconds). */
  lastModified: number;
}

/** The entity tags of an `If-Match`/`If-None-Match` list, `W/` kept. */
function tagList(value: string): string[] {
  return value
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/** An HTTP date in whole epoch seconds, or undefined when it is not one. */
function httpDateSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/** Whether `If-None-Match` names `etag` or `*` (weak comparison), whatever `Cache-Control` says. */
export function noneMatchHits(headers: IncomingHttpHeaders, etag: string): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch === undefined) return false;
  return tagList(ifNoneMatch).some((tag) => tag === '*' || opaque(tag) === etag);
}

/**
 * RFC 9110 §13.2.2, for a GET or HEAD of an existing representation. The request's
 * `Cache-Control` plays no part: it speaks to caches, not to the origin, and `fetch()` adds
 * `no-cache` to every conditional request.
 */
export function evaluatePreconditions(
  headers: IncomingHttpHeaders,
  validators: Validators,
): PreconditionOutcome {
  const modified = Math.floor(validators.lastModified / 1000);
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined) {
    // Strong comparison: a weak tag never matches.
    const tags = tagList(ifMatch);
    if (!tags.some((tag) => tag === '*' || tag === validators.etag)) return 'failed';
  } else {
    const since = httpDateSeconds(headers['if-unmodified-since']);
    if (since !== undefined && modified > since) return 'failed';
  }
  if (headers['if-none-match'] !== undefined) {
    return noneMatchHits(headers, validators.etag) ? 'not-modified' : 'proceed';
  }
  const since = httpDateSeconds(headers['if-modified-since']);
  return since !== undefined && modified <= since ? 'not-modified' : 'proceed';
}

/**
 * Whether a `Range` applies under the request's `If-Range` (RFC 9110 §13.1.5): always
 * without one; with an entity tag, when it is the strong tag; with a date, when it is
 * exactly the last modification.
 */
export function rangeApplies(headers: IncomingHttpHeaders, validators: Validators): boolean {
  const ifRange = headers['if-range'];
  if (typeof ifRange !== 'string') return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === validators.etag;
  return httpDateSeconds(value) === Math.floor(validators.lastModified / 1000);
}
