// `pnpm --filter asset-store gen:client`: writes the client's types (src/client/api-types.ts)
// from the OpenAPI document `/openapi.json` serves, built from the same code.
import fs from 'node:fs';
import path from 'node:path';
import { openApiFeatures } from './openapi-features.js';
import { CLIENT_TYPES_FILE, clientTypesSource } from './openapi/client-types.js';
import { buildOpenApiDocument } from './openapi/openapi.js';
import { readVersion } from './version.js';

const document = buildOpenApiDocument(readVersion(), openApiFeatures);
const out = path.join(import.meta.dirname, '..', CLIENT_TYPES_FILE);
fs.writeFileSync(out, await clientTypesSource(document));
