// Bundles the web app into web/dist (or the folder given): app.js, sw.js, the static
// files, and the icons (drawn by icons.mjs). Run by `pnpm build`; the browser tests run it into a folder of their own. With
// --watch (`pnpm dev`) it rebuilds on every change until stopped.
import { watch as watchFiles } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { allIcons } from './icons.mjs';

const here = import.meta.dirname;
const args = process.argv.slice(2);
const watch = args.includes('--watch');
const outDir = path.resolve(args.find((arg) => !arg.startsWith('--')) ?? path.join(here, 'dist'));

// Watching, the folder is kept: the server serves it meanwhile.
if (!watch) await fs.rm(outDir, { recursive: true, force: true });
const options = {
  entryPoints: { app: path.join(here, 'src/main.ts'), sw: path.join(here, 'sw/sw.ts') },
  outdir: outDir,
  bundle: true,
  minify: true,
  format: 'iife',
  // tweetnacl's package.json maps Node's crypto away for browsers.
  platform: 'browser',
  target: ['chrome109', 'firefox115', 'safari16'],
  legalComments: 'none',
  logLevel: 'warning',
};
const statics = ['index.html', 'styles.css', 'manifest.webmanifest'];
const copyStatics = async () => {
  await fs.mkdir(outDir, { recursive: true });
  await Promise.all(
    statics.map((file) => fs.copyFile(path.join(here, file), path.join(outDir, file))),
  );
};
const writeIcons = async () => {
  await fs.mkdir(outDir, { recursive: true });
  await Promise.all(
    Object.entries(allIcons()).map(([file, png]) => fs.writeFile(path.join(outDir, file), png)),
  );
};
if (watch) {
  // Ctrl-C (or SIGTERM) ends the watch with exit 0: `pnpm dev` reports a death by signal as
  // a failure.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
  await (await esbuild.context({ ...options, logLevel: 'info' })).watch();
  await Promise.all([copyStatics(), writeIcons()]);
  watchFiles(here, (_event, file) => {
    // An editor or git may replace a file (gone for a moment): the next event copies it.
    if (statics.includes(file)) copyStatics().catch((err) => console.warn(err.message));
  });
  console.log(`handle-relay web app: watching, built into ${outDir}`);
} else {
  await Promise.all([esbuild.build(options), copyStatics(), writeIcons()]);
}
