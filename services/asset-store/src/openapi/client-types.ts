import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import type { JsonObject } from './openapi.js';

/** The generated file, relative to the service's folder. */
export const CLIENT_TYPES_FILE = 'src/client/api-types.ts';

const HEADER =
  '// Generated from the OpenAPI document (`pnpm --filter asset-store gen:client`, openapi-typescript):\n' +
  '// do not edit; change the server schemas and regenerate. test/client-types.test.ts checks it.\n\n';

/** The client's types for an OpenAPI document, as `CLIENT_TYPES_FILE` holds them. */
export async function clientTypesSource(document: JsonObject): Promise<string> {
  const ast = await openapiTS(document as unknown as OpenAPI3, { silent: true });
  return HEADER + astToString(ast);
}
