import { z } from 'zod';
import { handlePatternBody } from '../handles/handle-rules.js';

/** Contract: an envelope's JSON text may be at most 256 KiB. */
export const MAX_ENVELOPE_BYTES = 262_144;
/** The JSON body parser's limit on `POST /v1/messages`: the envelope plus room for `to`. */
export const SEND_BODY_LIMIT_BYTES = 1_048_576;
/** Contract: inbox `limit` default and bounds. */
export const INBOX_DEFAULT_LIMIT = 100;
export const INBOX_MAX_LIMIT = 500;

/** `POST /v1/messages` body; `envelope` may be any JSON value, but must be present. */
export const sendMessageBody = z.object(
  {
    to: z.string({ error: 'to must be a string' }).meta({
      description: 'bare handle or `<handle>@<this server>`',
      pattern: `^${handlePatternBody(true)}(@[\\s\\S]+)?$`,
    }),
    envelope: z
      .unknown()
      .refine((v) => v !== undefined, { error: 'envelope is required' })
      .meta({ description: 'any JSON value; at most 262,144 bytes as JSON' }),
  },
  { error: 'body must be a JSON object' },
);

/** The largest cursor (`since`, `Last-Event-ID`): 15 digits. */
export const MAX_CURSOR = 999_999_999_999_999;

const cursor = z
  .string({ error: 'since must be a non-negative integer' })
  .regex(/^\d{1,15}$/, 'since must be a non-negative integer')
  .transform(Number);

/** `GET /v1/inbox/{handle}` query: `since` ≥ 0 (default 0), `limit` 1–500 (default 100). */
export const inboxQuery = z.object({
  since: cursor.optional().default(0),
  limit: z
    .string({ error: `limit must be an integer from 1 to ${INBOX_MAX_LIMIT}` })
    .regex(/^\d{1,15}$/, `limit must be an integer from 1 to ${INBOX_MAX_LIMIT}`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= INBOX_MAX_LIMIT, {
      error: `limit must be an integer from 1 to ${INBOX_MAX_LIMIT}`,
    })
    .optional()
    .default(INBOX_DEFAULT_LIMIT),
});

/** A stream resume point (`Last-Event-ID` header or `since` query): a non-negative integer. */
export const resumeCursor = cursor;
