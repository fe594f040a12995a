import { jsonResponse, type OpenApiFeature } from '../openapi/openapi-types.js';

/** Liveness. */
export const healthOpenApi: OpenApiFeature = {
  paths: {
    '/v1/healthz': {
      get: {
        summary: 'Liveness with server name and version',
        responses: {
          '200': jsonResponse('Alive', {
            type: 'object',
            required: ['status', 'server', 'version'],
            additionalProperties: false,
            properties: {
              status: { const: 'ok' },
              server: { type: 'string' },
              version: { type: 'string' },
            },
          }),
        },
      },
    },
  },
};
