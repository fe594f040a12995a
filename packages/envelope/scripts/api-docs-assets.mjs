// Copies the API reference renderer's browser bundle (Scalar's standalone build, a dev
// dependency) next to the compiled package, as dist/api-docs/scalar.js: what `/docs` serves
// in the images, whose production install has no @scalar/api-reference. Run by the Dockerfiles.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const here = import.meta.dirname;
const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
const from = path.join(path.dirname(entry), 'browser', 'standalone.js');
const to = path.join(here, '..', 'dist', 'api-docs', 'scalar.js');
fs.mkdirSync(path.dirname(to), { recursive: true });
fs.copyFileSync(from, to);
console.log(`api docs renderer: ${path.relative(process.cwd(), to)}`);
