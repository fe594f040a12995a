import {
  errorResponse,
  jsonResponse,
  pathParam,
  ref,
  signed,
  type OpenApiFeature,
} from '../openapi/openapi-types.js';
import { handlePatternBody } from './handle-rules.js';
import { PROOF_MAX_LENGTH, PROOFS_MAX } from './handle.schemas.js';

/** A primary as records show it: stored with lowercase hex. */
const PRIMARY = '^ed25519:[0-9a-f]{64}$';
/** A primary as a registration or a lookup may spell it: hex in either case. */
const PRIMARY_INPUT = '^ed25519:[0-9a-fA-F]{64}$';

/** The `{handle}` path parameter: a handle as lookups take it (case folded); else 400. */
export const handleParam = pathParam(
  'handle',
  'bare handle (ASCII case folded)',
  `^${handlePatternBody(true)}$`,
);

/** Registration, lookups and proofs. */
export const handlesOpenApi: OpenApiFeature = {
  schemas: {
    HandleRecord: {
      type: 'object',
      required: ['handle', 'fqhn', 'primary', 'sigchain_url', 'registered_at', 'proofs'],
      additionalProperties: false,
      properties: {
        handle: { type: 'string', pattern: `^${handlePatternBody(false)}$` },
        fqhn: { type: 'string', pattern: `^${handlePatternBody(false)}@.+$` },
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
          description: 'Other payload fields are allowed, signed and ignored.',
          properties: {
            server: { type: 'string' },
            handle: {
              type: 'string',
              pattern: `^${handlePatternBody(false)}$`,
              description: 'in its stored (lowercase) form',
            },
            primary: { type: 'string', pattern: PRIMARY_INPUT },
            ts: { type: 'integer', description: 'Unix seconds, within ±300 s of server time' },
          },
        },
        signature: {
          type: 'object',
          required: ['alg', 'key', 'sig'],
          properties: {
            alg: { const: 'ed25519-sha512-jcs' },
            key: { type: 'string', pattern: PRIMARY_INPUT, description: 'equals payload.primary' },
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
        operationId: 'register',
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
        operationId: 'getHandle',
        parameters: [handleParam],
        responses: {
          '200': jsonResponse('The handle record', ref('HandleRecord')),
          '400': errorResponse('Malformed percent-encoding in the path'),
          '404': errorResponse('Not registered, or no valid handle'),
        },
      },
    },
    '/v1/by-primary/{primary}': {
      get: {
        summary: 'Reverse lookup by primary identity',
        operationId: 'getHandleByPrimary',
        parameters: [pathParam('primary', '`ed25519:<64 hex>`', PRIMARY_INPUT)],
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
        operationId: 'setProofs',
        security: signed,
        parameters: [handleParam],
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
                    maxItems: PROOFS_MAX,
                    items: {
                      type: 'string',
                      maxLength: PROOF_MAX_LENGTH,
                      pattern: '^[^:]+:[\\s\\S]+$',
                    },
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
