// Bundles the console into web/dist (or the folder given): app.js, tus.js and the static files.
// Run by `pnpm build`; the browser tests run it into a folder of their own. With --watch
// (`pnpm dev`) it rebuilds on every change until stopped.
import { watch as watchFiles } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';
import sharp from 'sharp';

const here = import.meta.dirname;
const args = process.argv.slice(2);
const watch = args.includes('--watch');
const outDir = path.resolve(args.find((arg) => !arg.startsWith('--')) ?? path.join(here, 'dist'));

// Watching, the folder is kept: the server serves it meanwhile.
if (!watch) await fs.rm(outDir, { recursive: true, force: true });
const common = {
  bundle: true,
  minify: true,
  platform: 'browser',
  target: ['chrome109', 'firefox115', 'safari16'],
  legalComments: 'none',
  logLevel: 'warning',
};
const builds = [
  {
    ...common,
    entryPoints: { app: path.join(here, 'src/main.ts') },
    outdir: outDir,
    format: 'iife',
  },
  // tus-js-client is most of the console's script and only uploads need it: a module of its
  // own, imported with the first upload, so the first screen parses and runs less script.
  {
    ...common,
    entryPoints: { tus: path.join(here, 'src/tus-module.ts') },
    outdir: outDir,
    format: 'esm',
  },
];
const statics = ['index.html', 'styles.css', 'icon.svg'];
/**
 * `favicon.ico` (served at `/favicon.ico`, which browsers and tools ask for unprompted): the
 * SVG icon drawn at 32 px, as the one PNG image of an ICO file (ICONDIR, one ICONDIRENTRY).
 */
const writeFavicon = async () => {
  const png = await sharp(path.join(here, 'icon.svg')).resize(32, 32).png().toBuffer();
  const head = Buffer.alloc(22);
  head.writeUInt16LE(0, 0); // reserved
  head.writeUInt16LE(1, 2); // type: icon
  head.writeUInt16LE(1, 4); // one image
  head.writeUInt8(32, 6); // width
  head.writeUInt8(32, 7); // height
  head.writeUInt16LE(1, 10); // colour planes
  head.writeUInt16LE(32, 12); // bits per pixel
  head.writeUInt32LE(png.length, 14);
  head.writeUInt32LE(head.length, 18); // where the PNG starts
  await fs.writeFile(path.join(outDir, 'favicon.ico'), Buffer.concat([head, png]));
};
const copyStatics = async () => {
  await fs.mkdir(outDir, { recursive: true });
  await Promise.all(
    statics.map((file) => fs.copyFile(path.join(here, file), path.join(outDir, file))),
  );
  await writeFavicon();
};
if (watch) {
  // Ctrl-C (or SIGTERM) ends the watch with exit 0: `pnpm dev` reports a death by signal as
  // a failure.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
  for (const options of builds)
    await (await esbuild.context({ ...options, logLevel: 'info' })).watch();
  await copyStatics();
  watchFiles(here, (_event, file) => {
    // An editor or git may replace a file (gone for a moment): the next event copies it.
    if (statics.includes(file)) copyStatics().catch((err) => console.warn(err.message));
  });
  console.log(`asset-store console: watching, built into ${outDir}`);
} else {
  for (const options of builds) await esbuild.build(options);
  await copyStatics();
}
