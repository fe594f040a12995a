import { handleParam } from '../handles/handle.openapi.js';
import {
  errorResponse,
  fromZod,
  jsonResponse,
  signed,
  type OpenApiFeature,
} from '../openapi/openapi-types.js';
import { unsubscribeBody } from './push.schemas.js';

const endpoint = {
  type: 'string',
  format: 'uri',
  maxLength: 2048,
  description: 'At most 2,048 bytes of UTF-8.',
};
const key = { type: 'string', minLength: 1, maxLength: 1024, pattern: '^[A-Za-z0-9+/_-]+={0,2}$' };
/** `keys` of the flat shape: anything but an object (an object makes it the browser shape). */
const notKeys = { not: { type: ['object', 'array'] } };

/** Web Push: the server key and (un)subscribing a handle's devices. */
export const pushOpenApi: OpenApiFeature = {
  paths: {
    '/v1/push/vapid-public-key': {
      get: {
        summary: 'The server’s VAPID public key (uncompressed P-256 point, base64url)',
        operationId: 'getVapidPublicKey',
        responses: {
          '200': jsonResponse('The key', {
            type: 'object',
            required: ['key'],
            additionalProperties: false,
            properties: { key: { type: 'string', pattern: '^[A-Za-z0-9_-]{87}$' } },
          }),
        },
      },
    },
    '/v1/push/subscribe/{handle}': {
      post: {
        summary:
          'Store a push subscription (signed: subscribe, /v1/push/subscribe/<handle>, <endpoint>, <ts>)',
        operationId: 'subscribePush',
        security: signed,
        parameters: [handleParam],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                oneOf: [
                  {
                    type: 'object',
                    required: ['endpoint', 'p256dh', 'auth'],
                    properties: { endpoint, p256dh: key, auth: key, keys: notKeys },
                  },
                  {
                    type: 'object',
                    required: ['endpoint', 'keys'],
                    properties: {
                      endpoint,
                      keys: {
                        type: 'object',
                        description: 'wins over top-level p256dh and auth',
                        required: ['p256dh', 'auth'],
                        properties: { p256dh: key, auth: key },
                      },
                    },
                  },
                ],
              },
            },
          },
        },
        responses: {
          '204': { description: 'Stored (or updated, keyed by endpoint)' },
          '400': errorResponse('Invalid handle or body; endpoint not https or private'),
          '401': errorResponse('X-ID-Auth missing, malformed, stale or not verifying'),
          '404': errorResponse('Not registered'),
          '413': errorResponse('Body above 16 KiB'),
          '415': errorResponse('A `Content-Encoding` it cannot read (`unsupported_media_type`)'),
        },
      },
    },
    '/v1/push/unsubscribe/{handle}': {
      post: {
        summary:
          'Remove a push subscription (signed: unsubscribe, /v1/push/unsubscribe/<handle>, <endpoint>, <ts>)',
        operationId: 'unsubscribePush',
        security: signed,
        parameters: [handleParam],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: fromZod(unsubscribeBody),
            },
          },
        },
        responses: {
          '204': { description: 'Removed (or was not there)' },
          '400': errorResponse('Invalid handle or body'),
          '401': errorResponse('X-ID-Auth missing, malformed, stale or not verifying'),
          '404': errorResponse('Not registered'),
          '413': errorResponse('Body above 16 KiB'),
          '415': errorResponse('A `Content-Encoding` it cannot read (`unsupported_media_type`)'),
        },
      },
    },
  },
};
