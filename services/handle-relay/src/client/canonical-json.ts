import { canonicalize } from 'json-canonicalize';

/**
 * The RFC 8785 (JCS) text of a value parsed from JSON, through json-canonicalize, which the
 * relay and its clients share. That library hands any object with a `toJSON` member to
 * JSON.stringify (as it would a Date), so such an object, and everything inside it, kept
 * its keys in the order sent, and a strictly RFC 8785 signer's signature did not verify.
 * In parsed JSON such a member is plain data: a value holding one is written here, keys
 * sorted by UTF-16 code units at every level, with the library writing every string and
 * number; any other value is the library's alone. One walk decides, so deep nesting costs
 * no more than the library's own recursion.
 */
export function canonicalJson(value: unknown): string {
  return holdsToJsonMember(value) ? write(value) : canonicalize(value);
}

function write(value: unknown): string {
  if (value === null || typeof value !== 'object') return canonicalize(value);
  if (Array.isArray(value)) return `[${value.map(write).join(',')}]`;
  const object = value as Record<string, unknown>;
  const members = Object.keys(object)
    .sort()
    .map((key) => `${canonicalize(key)}:${write(object[key])}`);
  return `{${members.join(',')}}`;
}

function holdsToJsonMember(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(holdsToJsonMember);
  return Object.hasOwn(value, 'toJSON') || Object.values(value).some(holdsToJsonMember);
}
