import { z } from 'zod';

/** A JSON Schema object as OpenAPI 3.1 embeds it. */
export type JsonSchema = Record<string, unknown>;

/** One feature's OpenAPI path items, keyed by templated path (`/v1/u/{handle}`). */
export type OpenApiPaths = Record<string, Record<string, unknown>>;

/** A feature's contribution: its paths and any component schemas it names. */
export interface OpenApiFeature {
  paths: OpenApiPaths;
  schemas?: Record<string, JsonSchema>;
}

/**
 * The JSON Schema of what a zod schema accepts (its input side), so a request body in the
 * document is the one the route parses and cannot drift from it. Checks zod cannot express
 * (refinements) are carried by `.meta({...})` next to them in the `*.schemas.ts` file.
 */
export function fromZod(schema: z.ZodType): JsonSchema {
  const json: JsonSchema = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  delete json.$schema;
  return json;
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

/** A path parameter of type string, with the pattern the route holds it to. */
export function pathParam(name: string, description: string, pattern?: string) {
  const schema = pattern === undefined ? { type: 'string' } : { type: 'string', pattern };
  return { name, in: 'path', required: true, description, schema };
}

/** Signed requests: `X-ID-Auth` (`components.securitySchemes.idAuth`). */
export const signed = [{ idAuth: [] }];

/** The live stream: the same signature in the `auth` query parameter. */
export const streamSigned = [{ streamAuth: [] }];
