import { jsonResponse, type OpenApiFeature } from '../openapi/openapi-types.js';

/** The web root, metrics and this document itself. */
export const webOpenApi: OpenApiFeature = {
  paths: {
    '/': {
      get: {
        summary: 'Placeholder page, or the client app from web_dir (SPA fallback)',
        operationId: 'webRoot',
        responses: {
          '200': { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } },
        },
      },
    },
    '/metrics': {
      get: {
        summary: 'Prometheus metrics',
        operationId: 'metrics',
        responses: {
          '200': {
            description: 'Prometheus text exposition format',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    '/openapi.json': {
      get: {
        summary: 'This OpenAPI 3.1 document',
        operationId: 'openapi',
        responses: { '200': jsonResponse('OpenAPI document', { type: 'object' }) },
      },
    },
  },
};
