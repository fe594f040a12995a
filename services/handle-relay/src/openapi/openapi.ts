import { sharedSchemas } from './components.js';
import {
  errorResponse,
  type JsonSchema,
  type OpenApiFeature,
  type OpenApiPaths,
} from './openapi-types.js';

/** What any operation may answer: another method on its path (405), or a failure (500). */
const SHARED_RESPONSES = {
  '405': errorResponse('Another method on this path (`method_not_allowed`, with `Allow`)'),
  '500': errorResponse('Unexpected failure (`internal`), logged; no detail in the body'),
};

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

function withSharedResponses(item: OpenApiPaths[string]): OpenApiPaths[string] {
  return Object.fromEntries(
    Object.entries(item).map(([key, value]) => {
      if (!METHODS.has(key)) return [key, value];
      const op = value as { responses?: Record<string, unknown> };
      return [key, { ...op, responses: { ...SHARED_RESPONSES, ...op.responses } }];
    }),
  );
}

/** The OpenAPI 3.1 document of every endpoint, merged from the features' path objects. */
export function buildOpenApi(
  version: string,
  features: readonly OpenApiFeature[],
): Record<string, unknown> {
  const paths: OpenApiPaths = {};
  const schemas: Record<string, JsonSchema> = { ...sharedSchemas };
  for (const feature of features) {
    for (const [p, item] of Object.entries(feature.paths)) {
      paths[p] = { ...paths[p], ...withSharedResponses(item) };
    }
    Object.assign(schemas, feature.schemas);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'handle-relay',
      version,
      description:
        'Handle registry and end-to-end encrypted message relay with Ed25519-signed requests.',
    },
    paths,
    components: { schemas },
  };
}
