// Bundles the console into web/dist (or the folder given): app.js, tus.js and the static files.
// Run by `pnpm build`; the browser tests run it into a folder of their own.
import fs from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';

const here = import.meta.dirname;
const outDir = path.resolve(process.argv[2] ?? path.join(here, 'dist'));

await fs.rm(outDir, { recursive: true, force: true });
const common = {
  bundle: true,
  minify: true,
  platform: 'browser',
  target: ['chrome109', 'firefox115', 'safari16'],
  legalComments: 'none',
  logLevel: 'warning',
};
await esbuild.build({
  ...common,
  entryPoints: { app: path.join(here, 'src/main.ts') },
  outdir: outDir,
  format: 'iife',
});
// tus-js-client is most of the console's script and only uploads need it: a module of its
// own, imported with the first upload, so the first screen parses and runs less script.
await esbuild.build({
  ...common,
  entryPoints: { tus: path.join(here, 'src/tus-module.ts') },
  outdir: outDir,
  format: 'esm',
});
for (const file of ['index.html', 'styles.css']) {
  await fs.copyFile(path.join(here, file), path.join(outDir, file));
}
