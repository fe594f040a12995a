import {
  errorResponse,
  jsonResponse,
  type JsonSchema,
  type OpenApiFeature,
} from '../openapi/openapi-types.js';

const hex64 = { type: 'string', pattern: '^[0-9a-f]{64}$' };
const count = (name: string, description: string) => ({
  name,
  in: 'query',
  required: true,
  description,
  schema: { type: 'string', pattern: '^[0-9]{1,15}$' },
});
const obj = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  required: Object.keys(properties),
  additionalProperties: false,
  properties,
});

/** The transparency log (RFC 9162 §2.1 tree over every signature-chain link). */
export const logOpenApi: OpenApiFeature = {
  paths: {
    '/v1/log/head': {
      get: {
        summary: 'The signed tree head',
        description:
          "`sig` is the log key's Ed25519 signature over `handle-relay log v1\\n<size>\\n<root>\\n<timestamp>`.",
        operationId: 'logHead',
        responses: {
          '200': jsonResponse(
            'Signed tree head',
            obj({
              size: { type: 'integer', minimum: 0 },
              root: hex64,
              timestamp: { type: 'integer' },
              key: { type: 'string', pattern: '^ed25519:[0-9a-f]{64}$' },
              sig: { type: 'string', pattern: '^[0-9a-f]{128}$' },
            }),
          ),
        },
      },
    },
    '/v1/log/inclusion': {
      get: {
        summary: 'Inclusion proof of a leaf (RFC 9162 §2.1.3)',
        operationId: 'logInclusion',
        parameters: [
          {
            name: 'leaf',
            in: 'query',
            required: true,
            description: 'The leaf hash, SHA-256(0x00 ‖ line), hex',
            schema: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
          },
          count('size', "Tree size, at most the head's"),
        ],
        responses: {
          '200': jsonResponse(
            'Audit path',
            obj({
              index: { type: 'integer', minimum: 0 },
              size: { type: 'integer', minimum: 1 },
              path: { type: 'array', items: hex64 },
            }),
          ),
          '400': errorResponse('Malformed query, or size beyond the head'),
          '404': errorResponse('No such leaf in the tree of this size'),
        },
      },
    },
    '/v1/log/consistency': {
      get: {
        summary: 'Consistency proof between two tree sizes (RFC 9162 §2.1.4)',
        operationId: 'logConsistency',
        parameters: [count('from', 'The older size, at least 1'), count('to', 'The newer size')],
        responses: {
          '200': jsonResponse('Consistency proof', obj({ path: { type: 'array', items: hex64 } })),
          '400': errorResponse('Malformed query, from not in 1..to, or to beyond the head'),
        },
      },
    },
    '/v1/log/entries': {
      get: {
        summary: 'Log entries [start, end); end - start at most 1000 (a wider range: 400)',
        operationId: 'logEntries',
        parameters: [count('start', 'First index'), count('end', 'End index (exclusive)')],
        responses: {
          '200': jsonResponse(
            'Each entry the link line hashed into the tree',
            obj({ entries: { type: 'array', items: { type: 'string' } } }),
          ),
          '400': errorResponse(
            'Malformed query, start after end, end - start above 1000, or end beyond the head',
          ),
        },
      },
    },
  },
};
