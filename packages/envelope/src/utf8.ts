import { errors } from './errors.js';

const strict = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8');

/** UTF-8 bytes as text (a leading byte order mark dropped); `undefined` when not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Where the first key or string holding U+FFFD sits in a JSON value, in document order:
 * `description`, `envelope.items[2]`; `undefined` when none does.
 */
function replacementPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\uFFFD') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = replacementPath(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (key.includes('\uFFFD')) return at;
    const found = replacementPath(item, at);
    if (found) return found;
  }
  return undefined;
}

/**
 * A JSON body's bytes as text. Bytes that are not UTF-8 would become U+FFFD, changing what
 * the client sent in silence: 400 naming the field that holds them (`body` when the text
 * does not parse, or the bad bytes sit in the top-level value).
 */
export function decodeJsonUtf8(bytes: Uint8Array): string {
  const text = decodeUtf8(bytes);
  if (text !== undefined) return text;
  let field: string | undefined;
  try {
    field = replacementPath(JSON.parse(lenient.decode(bytes)), '');
  } catch {
    // Not JSON either: the body as a whole is named.
  }
  throw errors.invalidUtf8(field || 'body');
}
