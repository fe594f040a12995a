import {
  errorResponse,
  jsonResponse,
  pathParam,
  ref,
  xIdAuthHeader,
  type OpenApiFeature,
} from '../openapi/openapi-types.js';

/** A primary as records show it: stored with lowercase hex. */
const PRIMARY = '^ed25519:[0-9a-f]{64}$';
/** A primary as a registration may spell it: hex in either case. */
const PRIMARY_INPUT = '^ed25519:[0-9a-fA-F]{64}$';

/** Registration, lookups and proofs. */
export const handlesOpenApi: OpenApiFeature = {
  schemas: {
    HandleRecord: {
      type: 'object',
      required: ['handle', 'fqhn', 'primary', 'sigchain_url', 'registered_at', 'proofs'],
      additionalProperties: false,
      properties: {
        handle: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{2,31}$' },
        fqhn: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{2,31}@.+$' },
        primary: { type: 'string', pattern: PRIMARY },
        sigchain_url: { type: 'string', format: 'uri' },
        registered_at: {
          type: 'string',
          format: 'date-time',
          pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
        },
        proofs: { type: 'array', items: { type: 'string' } },
      },
    },
    Registration: {
      type: 'object',
      required: ['payload', 'signature'],
      properties: {
        payload: {
          type: 'object',
          required: ['server', 'handle', 'primary', 'ts'],
          properties: {
            server: { type: 'string' },
            handle: { type: 'string' },
            primary: { type: 'string', pattern: PRIMARY_INPUT },
            ts: { type: 'integer', description: 'Unix seconds, within ±300 s of server time' },
          },
        },
        signature: {
          type: 'object',
          required: ['alg', 'key', 'sig'],
          properties: {
            alg: { const: 'ed25519-sha512-jcs' },
            key: { type: 'string', description: 'equals payload.primary' },
            sig: {
              type: 'string',
              description: 'hex Ed25519 signature of the RFC 8785 form of payload',
            },
          },
        },
      },
    },
  },
  paths: {
    '/v1/register': {
      post: {
        summary: 'Claim a handle with a signed registration',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: ref('Registration') } },
        },
        responses: {
          '201': jsonResponse('The new handle record', ref('HandleRecord')),
          '400': errorResponse('Bad envelope or signature, server mismatch, handle rule, skew'),
          '409': errorResponse('Handle already claimed, or the primary already owns one'),
          '413': errorResponse('Body above 64 KiB'),
          '415': errorResponse('A `Content-Encoding` it cannot read (`unsupported_media_type`)'),
          '429': errorResponse('Rate limited (`rate_limited`, with `Retry-After`)'),
        },
      },
    },
    '/v1/u/{handle}': {
      get: {
        summary: 'Look up a handle (case folded)',
        parameters: [pathParam('handle', 'bare handle')],
        responses: {
          '200': jsonResponse('The handle record', ref('HandleRecord')),
          '400': errorResponse('Malformed percent-encoding in the path'),
          '404': errorResponse('Not registered'),
        },
      },
    },
    '/v1/by-primary/{primary}': {
      get: {
        summary: 'Reverse lookup by primary identity',
        parameters: [pathParam('primary', '`ed25519:<64 hex>`')],
        responses: {
          '200': jsonResponse('The handle record', ref('HandleRecord')),
          '400': errorResponse('Not `ed25519:<64 hex>`'),
          '404': errorResponse('No handle has this primary'),
        },
      },
    },
    '/v1/profile/{handle}/proofs': {
      put: {
        summary: 'Replace the published proofs (signed: PUT, /v1/profile/<handle>/proofs, <ts>)',
        parameters: [pathParam('handle', 'bare handle'), xIdAuthHeader],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['proofs'],
                properties: {
                  proofs: {
                    type: 'array',
                    maxItems: 64,
                    items: { type: 'string', maxLength: 512, pattern: '^[^:]+:.+$' },
                  },
                },
              },
            },
          },
        },
        responses: {
          '204': { description: 'Proofs replaced' },
          '400': errorResponse('Invalid handle, too many or malformed proofs'),
          '401': errorResponse('X-ID-Auth missing, malformed, stale or not verifying'),
          '404': errorResponse('Not registered'),
          '413': errorResponse('Body above 256 KiB'),
          '415': errorResponse('A `Content-Encoding` it cannot read (`unsupported_media_type`)'),
        },
      },
    },
  },
};
