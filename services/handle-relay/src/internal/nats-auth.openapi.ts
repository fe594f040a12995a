import { errorResponse, type OpenApiFeature } from '../openapi/openapi-types.js';

/** The message-bus callout stub. */
export const natsAuthOpenApi: OpenApiFeature = {
  paths: {
    '/internal/nats/auth': {
      post: {
        summary: 'Message-bus auth callout (not implemented in this version)',
        operationId: 'natsAuthCallout',
        requestBody: { content: { 'application/json': { schema: {} } } },
        responses: { '501': errorResponse('Always: not_implemented') },
      },
    },
  },
};
