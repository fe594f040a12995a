import { sharedSchemas } from './components.js';
import type { JsonSchema, OpenApiFeature, OpenApiPaths } from './openapi-types.js';
import { openApiFeatures } from './registry.js';

/** The OpenAPI 3.1 document of every endpoint, merged from the features' path objects. */
export function buildOpenApi(
  version: string,
  features: readonly OpenApiFeature[] = openApiFeatures,
): Record<string, unknown> {
  const paths: OpenApiPaths = {};
  const schemas: Record<string, JsonSchema> = { ...sharedSchemas };
  for (const feature of features) {
    for (const [p, item] of Object.entries(feature.paths)) {
      paths[p] = { ...paths[p], ...item };
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
