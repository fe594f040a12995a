// Bundles the console into web/dist (or the folder given): app.js and the static files.
// Run by `pnpm build`; the browser tests run it into a folder of their own.
import fs from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';

const here = import.meta.dirname;
const outDir = path.resolve(process.argv[2] ?? path.join(here, 'dist'));

await fs.rm(outDir, { recursive: true, force: true });
await esbuild.build({
  entryPoints: { app: path.join(here, 'src/main.ts') },
  outdir: outDir,
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome109', 'firefox115', 'safari16'],
  legalComments: 'none',
  logLevel: 'warning',
});
for (const file of ['index.html', 'styles.css']) {
  await fs.copyFile(path.join(here, file), path.join(outDir, file));
}
