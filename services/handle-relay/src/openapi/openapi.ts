import { mapOperations, openApiDocument } from '@svc/envelope';
import { sharedSchemas } from './components.js';
import { errorResponse, type OpenApiFeature, type OpenApiPaths } from './openapi-types.js';

/** What any operation may answer: another method on its path (405), or a failure (500). */
const SHARED_RESPONSES = {
  '405': errorResponse('Another method on this path (`method_not_allowed`, with `Allow`)'),
  '500': errorResponse('Unexpected failure (`internal`), logged; no detail in the body'),
};

/** What an operation that reads or writes the database may answer while it does not. */
const DATABASE_RESPONSES = {
  '503': errorResponse('The database does not answer now (`unavailable`, with `Retry-After`)'),
};

/** What an operation that writes may answer when the database's disk is full. */
const WRITE_RESPONSES = {
  '507': errorResponse('The database is out of space (`insufficient_storage`); nothing stored'),
};

/** Paths whose operations touch the database: the API's, WebFinger's. */
const DATABASE_PATHS = /^\/(v1\/(?!push\/vapid-public-key$)|\.well-known\/)/;

function withSharedResponses(path: string, item: OpenApiPaths[string]): OpenApiPaths[string] {
  const shared = DATABASE_PATHS.test(path)
    ? { ...SHARED_RESPONSES, ...DATABASE_RESPONSES }
    : SHARED_RESPONSES;
  return mapOperations(item, (method, op) => {
    const writes = DATABASE_PATHS.test(path) && method !== 'get' && method !== 'head';
    // An operation names its credential (`signed`, `streamSigned`); the rest are open.
    const responses = {
      ...shared,
      ...(writes ? WRITE_RESPONSES : {}),
      ...(op.responses as Record<string, unknown> | undefined),
    };
    return { security: [], ...op, responses };
  });
}

/** The OpenAPI 3.1 document of every endpoint, merged from the features' path objects. */
export function buildOpenApi(
  version: string,
  features: readonly OpenApiFeature[],
): Record<string, unknown> {
  return openApiDocument({
    title: 'handle-relay',
    version,
    description:
      'Handle registry and end-to-end encrypted message relay with Ed25519-signed requests.',
    features,
    schemas: sharedSchemas,
    shared: withSharedResponses,
    securitySchemes: {
      idAuth: {
        type: 'apiKey',
        in: 'header',
        name: 'X-ID-Auth',
        description:
          "`<unix_ts>:<sig_hex>`: the Ed25519 signature, by the handle's primary key, of the " +
          "operation's canonical lines and `<unix_ts>` (within 60 s of server time).",
      },
      streamAuth: {
        type: 'apiKey',
        in: 'query',
        name: 'auth',
        description:
          "The live stream's X-ID-Auth (EventSource cannot send headers): the same " +
          '`<unix_ts>:<sig_hex>`, checked at connect time; missing: 400.',
      },
    },
  });
}
