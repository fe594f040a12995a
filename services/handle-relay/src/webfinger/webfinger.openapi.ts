import { errorResponse, jsonResponse, type OpenApiFeature } from '../openapi/openapi-types.js';

const link = {
  type: 'object',
  required: ['rel', 'type', 'href'],
  additionalProperties: false,
  properties: { rel: { type: 'string' }, type: { type: 'string' }, href: { type: 'string' } },
};

/** WebFinger discovery (RFC 7033). */
export const webFingerOpenApi: OpenApiFeature = {
  paths: {
    '/.well-known/webfinger': {
      get: {
        summary: 'Discover a handle by acct: resource',
        operationId: 'webFinger',
        parameters: [
          {
            name: 'resource',
            in: 'query',
            required: true,
            description: '`acct:<handle>@<server>` (the scheme in any case)',
            schema: { type: 'string', pattern: '^[Aa][Cc][Cc][Tt]:[\\s\\S]*@[\\s\\S]*$' },
          },
        ],
        responses: {
          '200': jsonResponse(
            'JSON Resource Descriptor',
            {
              type: 'object',
              required: ['subject', 'links'],
              additionalProperties: false,
              properties: {
                subject: { type: 'string', pattern: '^acct:.+@.+$' },
                links: { type: 'array', minItems: 2, maxItems: 2, items: link },
              },
            },
            'application/jrd+json',
          ),
          '400': errorResponse('Missing or malformed resource'),
          '404': errorResponse('Other server or unknown handle'),
        },
      },
    },
  },
};
