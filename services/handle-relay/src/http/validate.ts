import type { z } from 'zod';
import { relayErrors } from '../errors.js';

/** Validates with zod; the first problem becomes a 400 naming the field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const message = issue?.message ?? 'invalid request';
  const field = issue?.path.map(String).join('.') ?? '';
  // Our own messages already start with the field; zod's defaults get it prefixed.
  const named = field === '' || message.startsWith(field.split('.')[0] ?? '');
  throw relayErrors.badRequest(named ? message : `${field}: ${message}`);
}
