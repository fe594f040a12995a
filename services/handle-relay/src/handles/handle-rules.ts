import { relayErrors } from '../errors.js';

/** Shortest allowed handle (contract: 3–32 characters). */
export const HANDLE_MIN_LENGTH = 3;
/** Longest allowed handle. */
export const HANDLE_MAX_LENGTH = 32;

/** Names nobody may claim (contract, "Handle rules"). */
export const RESERVED_HANDLES: ReadonlySet<string> = new Set([
  'admin',
  'administrator',
  'root',
  'system',
  'support',
  'help',
  'abuse',
  'postmaster',
  'hostmaster',
  'webmaster',
  'security',
  'noreply',
  'no-reply',
  'api',
  'www',
  'mail',
  'info',
  'server',
  'relay',
  'official',
  'staff',
  'moderator',
  'mod',
  'null',
  'undefined',
  'me',
  'self',
  'everyone',
  'all',
]);

const ALLOWED_CHARS = /^[a-z0-9_-]*$/;
const FIRST_CHAR = /^[a-z0-9]/;

/**
 * Why `handle` (already in the form it will be stored) breaks the handle rules, or
 * `undefined` when it is fine. Checked in a fixed order so messages are predictable.
 */
export function handleProblem(handle: string): string | undefined {
  if (handle.length < HANDLE_MIN_LENGTH || handle.length > HANDLE_MAX_LENGTH) {
    return `handle must be ${HANDLE_MIN_LENGTH}-${HANDLE_MAX_LENGTH} characters`;
  }
  if (!ALLOWED_CHARS.test(handle)) {
    return 'handle may contain only lowercase letters a-z, digits 0-9, _ and -';
  }
  if (!FIRST_CHAR.test(handle)) return 'handle must start with a letter or digit';
  if (RESERVED_HANDLES.has(handle)) return `handle ${handle} is reserved`;
  return undefined;
}

/** True when `handle` is a claimable handle in its stored (lowercase) form. */
export function isValidHandle(handle: string): boolean {
  return handleProblem(handle) === undefined;
}

/** ASCII letters of `word` as either case, for a pattern that folds case like `foldHandle`. */
function eitherCase(word: string): string {
  return word.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
}

/**
 * The handle rules as a JSON Schema pattern body (no anchors; a reserved name is refused
 * when followed by the end or `@`), for the OpenAPI document: `folded` for paths and
 * lookups (either case), else the stored form registration requires.
 */
export function handlePatternBody(folded: boolean): string {
  const reserved = [...RESERVED_HANDLES].map((h) => (folded ? eitherCase(h) : h)).join('|');
  const c = folded ? 'A-Za-z0-9' : 'a-z0-9';
  const rest = `{${HANDLE_MIN_LENGTH - 1},${HANDLE_MAX_LENGTH - 1}}`;
  return `(?!(?:${reserved})(?:$|@))[${c}][${c}_-]${rest}`;
}

const NON_ASCII = /[\u0080-\uffff]/;

/**
 * Lookups, WebFinger and paths fold case; registration requires the folded form already.
 * Only ASCII folds: `toLowerCase` would also turn the Kelvin sign (U+212A) into `k`, making
 * a name outside the handle alphabet reach a handle.
 */
export function foldHandle(handle: string): string {
  return NON_ASCII.test(handle) ? handle : handle.toLowerCase();
}

/**
 * A handle from a path of a route with an order of checks: folded, then validated.
 * Throws 400 for a malformed or reserved handle.
 */
export function requireValidHandle(raw: string): string {
  const handle = foldHandle(raw);
  const problem = handleProblem(handle);
  if (problem) throw relayErrors.invalidHandle(problem);
  return handle;
}

/** A fully qualified handle `<handle>@<server>` split at its last `@`. */
export interface QualifiedHandle {
  handle: string;
  server: string;
}

/** Splits `<handle>@<server>`; `undefined` when there is no `@` or a side is empty. */
export function parseQualifiedHandle(value: string): QualifiedHandle | undefined {
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1) return undefined;
  return { handle: value.slice(0, at), server: value.slice(at + 1) };
}

/** Server names compare case-insensitively (DNS names). */
export function sameServer(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** `<handle>@<server>`. */
export function fqhn(handle: string, server: string): string {
  return `${handle}@${server}`;
}
