import { z } from 'zod';
import { EVENT_TYPES } from '../changes/event-types.js';

/** `POST /admin/webhooks` body. */
export const createWebhookBody = z.strictObject({
  url: z
    .string()
    .max(2048, 'expected a URL of at most 2048 characters')
    .refine((v) => URL.canParse(v), 'expected an absolute http or https URL'),
  types: z
    .array(z.enum(EVENT_TYPES, `expected event types (${EVENT_TYPES.join(', ')})`))
    .min(1, 'expected at least one event type')
    .optional(),
});

/** A webhook id in a path. */
export const webhookId = z.uuid('expected a webhook id');
