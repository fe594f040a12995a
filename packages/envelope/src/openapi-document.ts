/** A JSON object as OpenAPI documents are made of. */
export type OpenApiObject = Record<string, unknown>;

/** What one feature contributes to a document: its path items and the schemas they name. */
export interface OpenApiContribution {
  /** Keyed by full path template (`/v1/u/{handle}`). */
  paths: Record<string, OpenApiObject>;
  /** Component schemas, referenced as `#/components/schemas/<name>`. */
  schemas?: Record<string, OpenApiObject>;
}

/** The licence both services' documents declare. */
export const OPENAPI_LICENSE = { name: 'Apache-2.0', identifier: 'Apache-2.0' };

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** A path item with `each` applied to its operations (not to its other members). */
export function mapOperations(
  item: OpenApiObject,
  each: (method: string, operation: OpenApiObject) => OpenApiObject,
): OpenApiObject {
  return Object.fromEntries(
    Object.entries(item).map(([key, value]) =>
      METHODS.has(key) ? [key, each(key, value as OpenApiObject)] : [key, value],
    ),
  );
}

/** A service's document: who it is, what it is made of, and what every path shares. */
export interface OpenApiDocumentParts {
  title: string;
  version: string;
  description: string;
  features: readonly OpenApiContribution[];
  /** Schemas every feature may reference (the error envelope). */
  schemas: Record<string, OpenApiObject>;
  securitySchemes: Record<string, OpenApiObject>;
  /** Adds what every operation on a path may answer, and its default security. */
  shared: (path: string, item: OpenApiObject) => OpenApiObject;
}

/**
 * The OpenAPI 3.1 document both services serve at `/openapi.json`, merged from their
 * features' path items: one skeleton (version, licence, servers, components) for both.
 */
export function openApiDocument(parts: OpenApiDocumentParts): OpenApiObject {
  const paths: Record<string, OpenApiObject> = {};
  const schemas: Record<string, OpenApiObject> = { ...parts.schemas };
  for (const feature of parts.features) {
    for (const [path, item] of Object.entries(feature.paths)) {
      paths[path] = { ...paths[path], ...parts.shared(path, item) };
    }
    Object.assign(schemas, feature.schemas ?? {});
  }
  return {
    openapi: '3.1.0',
    info: {
      title: parts.title,
      version: parts.version,
      description: parts.description,
      license: OPENAPI_LICENSE,
    },
    servers: [{ url: '/' }],
    paths,
    components: { schemas, securitySchemes: parts.securitySchemes },
  };
}
