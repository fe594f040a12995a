import type { JsonSchema } from './openapi-types.js';

/** Schemas shared by every feature. */
export const sharedSchemas: Record<string, JsonSchema> = {
  Error: {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: { code: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};
