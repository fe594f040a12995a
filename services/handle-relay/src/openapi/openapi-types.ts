/** A JSON Schema object as OpenAPI 3.1 embeds it. */
export type JsonSchema = Record<string, unknown>;

/** One feature's OpenAPI path items, keyed by templated path (`/v1/u/{handle}`). */
export type OpenApiPaths = Record<string, Record<string, unknown>>;

/** A feature's contribution: its paths and any component schemas it names. */
export interface OpenApiFeature {
  paths: OpenApiPaths;
  schemas?: Record<string, JsonSchema>;
}

/** `$ref` to a component schema. */
export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/** A JSON response with a schema. */
export function jsonResponse(description: string, schema: JsonSchema, type = 'application/json') {
  return { description, content: { [type]: { schema } } };
}

/** An error response in the relay's `{"error":{"code","message"}}` envelope. */
export function errorResponse(description: string) {
  return jsonResponse(description, ref('Error'));
}

/** A path parameter of type string. */
export function pathParam(name: string, description: string) {
  return { name, in: 'path', required: true, description, schema: { type: 'string' } };
}

/** The `X-ID-Auth` header parameter of signed requests. */
export const xIdAuthHeader = {
  name: 'X-ID-Auth',
  in: 'header',
  required: true,
  description: '`<unix_ts>:<sig_hex>`: Ed25519 signature over the canonical lines and `<ts>`.',
  schema: { type: 'string', pattern: '^-?[0-9]+:.*$' },
};
