import type { z } from 'zod';
import { assetErrors } from './errors.js';
import { isAssetHash } from './storage/content-hash.js';

/** Where validated input came from: named in messages. */
export type InputSource = 'body' | 'form' | 'query' | 'metadata';

/**
 * Parses `value` or throws a 400 naming the first field that is wrong, so the client
 * learns exactly what to fix. Schema messages say what was expected (`expected …`).
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  source: InputSource,
): z.output<S> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw assetErrors.notAnObject(source);
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') throw assetErrors.unknownField(source, issue.keys[0]!);
  const field = issue.path.length > 0 ? String(issue.path[0]) : source;
  // Query values are text; a parameter given twice arrives as an array, which is refused
  // rather than silently picking one, and zod's type message would not say so.
  if (source === 'query' && issue.code === 'invalid_type') {
    throw assetErrors.invalidField(field, 'expected a single value');
  }
  throw assetErrors.invalidField(field, issue.message);
}

/** A `{hash}` path segment, checked and lowercased; 400 when it is not 64 hex characters. */
export function parseHash(value: string | undefined): string {
  if (value === undefined || !isAssetHash(value)) throw assetErrors.badHash();
  return value.toLowerCase();
}
