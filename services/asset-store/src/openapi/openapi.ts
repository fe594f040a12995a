import { mapOperations, openApiDocument } from '@svc/envelope';
import { z } from 'zod';
import { API_BASE } from '../api-base.js';
import { ASSET_HASH_PATTERN } from '../storage/content-hash.js';

/** A JSON object as OpenAPI documents are made of. */
export type JsonObject = { [key: string]: unknown };

/** What one feature contributes to the document: its paths and the schemas they name. */
export interface OpenApiFeature {
  /** Keyed by full path template, e.g. `/api/v1/can/0/asset/{hash}`. */
  paths: Record<string, JsonObject>;
  /** Component schemas, referenced as `#/components/schemas/<name>`. */
  schemas?: Record<string, JsonObject>;
}

/**
 * The JSON Schema of what a zod schema accepts (its input side), so a request body in the
 * document is the one the route parses and cannot drift from it. Checks zod cannot express
 * (refinements) are carried by `.meta({...})` next to them in the `*.schemas.ts` file.
 */
export function fromZod(schema: z.ZodType): JsonObject {
  const json: JsonObject = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  delete json.$schema;
  return json;
}

/** `#/components/schemas/<name>`. */
export function ref(name: string): JsonObject {
  return { $ref: `#/components/schemas/${name}` };
}

/** The `{hash}` path parameter, as `parseHash` accepts it. */
export function hashParameter(description?: string): JsonObject {
  return {
    name: 'hash',
    in: 'path',
    required: true,
    ...(description === undefined ? {} : { description }),
    schema: { type: 'string', pattern: ASSET_HASH_PATTERN.source },
  };
}

/** A 200 JSON answer `{status: "success", data: <schema>}`. */
export function successResponse(description: string, data: JsonObject): JsonObject {
  return {
    description,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['status', 'data'],
          additionalProperties: false,
          properties: { status: { const: 'success' }, data },
        },
      },
    },
  };
}

/** One error answer in the envelope, for each status given. */
export function errorResponses(described: Record<number, string>): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const [status, description] of Object.entries(described)) {
    out[status] = {
      description,
      content: { 'application/json': { schema: ref('ErrorEnvelope') } },
    };
  }
  return out;
}

/** The schemas every feature may reference. */
const commonSchemas: Record<string, JsonObject> = {
  ErrorEnvelope: {
    type: 'object',
    required: ['status', 'error'],
    additionalProperties: false,
    properties: { status: { const: 'error' }, error: { type: 'string' } },
  },
};

/** What any operation may answer: another method on its path (405), or a failure (500). */
const sharedResponses = errorResponses({
  405: 'Another method on this path (with `Allow`)',
  500: 'Unexpected failure, logged; no detail in the body',
});

/** A data endpoint: open by default, the API token's when `api_token` is set. */
const dataSecurity = [{}, { apiToken: [] }];
/** What every endpoint under the API base may answer besides its own statuses. */
const dataResponses = errorResponses({
  401: 'api_token is set and the bearer token is not it (with `WWW-Authenticate: Bearer`)',
  503:
    'The index database, or S3 when assets are kept there, does not answer now, or another ' +
    'instance does not give the timestamps back in time (with `Retry-After`)',
});

/** What an endpoint that writes may answer when the index's or the files' disk is full. */
const outOfSpace = errorResponses({
  507: 'The storage or the index is out of space; nothing changed, a retry may succeed later',
});

function withSharedResponses(path: string, item: JsonObject): JsonObject {
  const data = path.startsWith(`${API_BASE}/`);
  return mapOperations(item, (method, op) => {
    const writes = data && method !== 'get' && method !== 'head';
    const responses = {
      ...sharedResponses,
      ...(data ? dataResponses : {}),
      ...(writes ? outOfSpace : {}),
      ...(op.responses as JsonObject | undefined),
    };
    // Operations with their own scheme (admin) keep it; the rest outside the API are open.
    if (op.security) return { ...op, responses };
    return { ...op, security: data ? dataSecurity : [], responses };
  });
}

/** Builds the OpenAPI 3.1 document from the features' path objects. */
export function buildOpenApiDocument(
  version: string,
  features: readonly OpenApiFeature[],
): JsonObject {
  return openApiDocument({
    title: 'asset-store',
    version,
    description:
      'Stores files and JSON values as assets identified by SHA-256(timestamp ‖ content).',
    features,
    schemas: commonSchemas,
    shared: withSharedResponses,
    securitySchemes: {
      adminToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'admin_token: needed by the admin endpoints (403 while none is set).',
      },
      apiToken: {
        type: 'http',
        scheme: 'bearer',
        description:
          'api_token (or the admin token): needed by every data endpoint when api_token is set; unset, they are open.',
      },
    },
  });
}
