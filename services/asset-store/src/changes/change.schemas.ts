import { z } from 'zod';

/** A cursor as the feed gives it: an event's position, in decimal. */
export const cursor = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,15})$/, 'expected a cursor given by the feed')
  .transform(Number);

/** `GET /changes` query parameters. */
export const changesQuery = z.object({
  after: cursor.optional(),
  limit: z
    .string()
    .regex(/^\d+$/, 'expected an integer from 1 to 1000')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 1000, 'expected an integer from 1 to 1000')
    .default(100),
});

/** `GET /changes/stream` query parameters (`Last-Event-ID` wins over `after`). */
export const streamQuery = z.object({ after: cursor.optional() });
