import { errorResponses, type OpenApiFeature } from '../openapi/openapi.js';

/** `/console/`, the web console, in the OpenAPI document. */
export const consoleOpenApi: OpenApiFeature = {
  paths: {
    '/': {
      get: {
        summary: 'The service root: a permanent redirect to the web console',
        operationId: 'root',
        responses: {
          '308': {
            description: 'To /console/',
            headers: { Location: { schema: { type: 'string', const: '/console/' } } },
          },
          ...errorResponses({ 404: 'console: false (the path is not routed)' }),
        },
      },
    },
    '/console/': {
      get: {
        summary:
          'The web console (its page; every other path under /console/ is its file or route)',
        operationId: 'console',
        responses: {
          '200': { description: 'The console page', content: { 'text/html': {} } },
          ...errorResponses({
            404: 'console: false (the path is not routed)',
            503: 'The console is not built (run pnpm build)',
          }),
        },
      },
    },
    '/favicon.ico': {
      get: {
        summary: "The console's icon (a 32 px PNG inside an ICO file)",
        operationId: 'favicon',
        responses: {
          '200': { description: 'The icon', content: { 'image/x-icon': {} } },
          ...errorResponses({ 404: 'console: false, or the console is not built' }),
        },
      },
    },
  },
};
