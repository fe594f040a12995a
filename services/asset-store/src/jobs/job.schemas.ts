import { z } from 'zod';
import { assetErrors } from '../errors.js';

/**
 * `POST /admin/jobs`: `{"kind": "verify"}`, `{"kind": "rebuild", "mode"?: "soft"|"hard"}`
 * or `{"kind": "backfill"}`.
 */
export const jobRequestSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('verify') }),
    z.strictObject({
      kind: z.literal('rebuild'),
      mode: z.enum(['soft', 'hard'], { error: 'expected "soft" or "hard"' }).default('soft'),
    }),
    z.strictObject({ kind: z.literal('backfill') }),
  ],
  { error: 'expected "verify", "rebuild" or "backfill"' },
);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A `{id}` path segment, lowercased; 400 when it is not a UUID. */
export function parseJobId(value: string | undefined): string {
  if (value === undefined || !UUID.test(value)) throw assetErrors.badJobId();
  return value.toLowerCase();
}
