// `pnpm lint:openapi`: writes the document `/openapi.json` serves to the file named by the
// first argument, built from the same code without starting the service.
import fs from 'node:fs';
import { openApiFeatures } from './openapi-features.js';
import { buildOpenApi } from './openapi/openapi.js';
import { readVersion } from './version.js';

const out = process.argv[2];
if (!out) throw new Error('usage: write-openapi.ts <output.json>');
fs.writeFileSync(out, `${JSON.stringify(buildOpenApi(readVersion(), openApiFeatures), null, 2)}\n`);
