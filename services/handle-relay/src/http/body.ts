import express, { type RequestHandler } from 'express';
import type { z } from 'zod';
import { relayErrors } from '../errors.js';

/**
 * Keeps the body as raw bytes (any content type) so a route can parse it as JSON at the
 * point its order of checks says, instead of before the handle and auth checks.
 */
export function rawBody(limit: string | number): RequestHandler {
  return express.raw({ type: () => true, limit });
}

/** Parses a raw body as JSON: `undefined` when empty, 400 when malformed. */
export function parseJsonBody(body: unknown): unknown {
  if (!Buffer.isBuffer(body) || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw relayErrors.badRequest('malformed JSON body');
  }
}

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
