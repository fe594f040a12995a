import { errorResponses, successResponse, type OpenApiFeature } from '../openapi/openapi.js';

/** `/healthz`, `/metrics` and `/openapi.json` in the OpenAPI document. */
export const healthOpenApi: OpenApiFeature = {
  paths: {
    '/healthz': {
      get: {
        summary: 'Health: 200 once the index and the storage answer',
        operationId: 'health',
        responses: {
          '200': successResponse('Serving', {
            type: 'object',
            required: ['status', 'version'],
            additionalProperties: false,
            properties: { status: { const: 'ok' }, version: { type: 'string' } },
          }),
          ...errorResponses({
            503: 'The index or the storage (S3) is unreachable, or the start waits for S3',
          }),
        },
      },
    },
    '/metrics': {
      get: {
        summary: 'Prometheus metrics',
        operationId: 'metrics',
        responses: {
          '200': { description: 'Text exposition format', content: { 'text/plain': {} } },
        },
      },
    },
    '/openapi.json': {
      get: {
        summary: 'This document',
        operationId: 'openapi',
        responses: {
          '200': {
            description: 'OpenAPI 3.1',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
  },
};
