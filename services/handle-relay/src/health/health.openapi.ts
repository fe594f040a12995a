import { errorResponse, jsonResponse, type OpenApiFeature } from '../openapi/openapi-types.js';

/** Liveness, reflecting the database. */
export const healthOpenApi: OpenApiFeature = {
  paths: {
    '/v1/healthz': {
      get: {
        summary: 'Health with server name and version: 503 while the database is unreachable',
        operationId: 'health',
        responses: {
          '200': jsonResponse('Alive', {
            type: 'object',
            required: ['status', 'server', 'version'],
            additionalProperties: false,
            properties: {
              status: { const: 'ok' },
              server: { type: 'string' },
              version: { type: 'string' },
              log_key: {
                type: 'string',
                description: "The transparency log's public key (`ed25519:<hex>`)",
              },
              log_key_problem: {
                type: 'string',
                description:
                  'Present when this instance signs with another key than the log was first signed by (a lost or replaced `log_key_path`)',
              },
            },
          }),
          '503': errorResponse('The database is unreachable'),
        },
      },
    },
  },
};
