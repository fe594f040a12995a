import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { StorageLayout } from '../storage/layout.js';
import type { Box } from './thumbnail.renderer.js';

/** `.thumbs/<hash>_<w>x<h>.jpg`, named by the box asked for (contract). */
export function thumbnailPath(layout: StorageLayout, hash: string, box: Box): string {
  return path.join(layout.thumbs, `${hash}_${box.width}x${box.height}.jpg`);
}

/** The cached thumbnail, or undefined on a miss. */
export async function readCachedThumbnail(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes under `.tmp/` and renames into place, so a reader never sees half a JPEG. */
export async function writeCachedThumbnail(
  layout: StorageLayout,
  file: string,
  jpeg: Buffer,
): Promise<void> {
  await fs.mkdir(layout.thumbs, { recursive: true });
  await fs.mkdir(layout.tmp, { recursive: true });
  const temp = path.join(layout.tmp, `thumb-${randomBytes(8).toString('hex')}`);
  await fs.writeFile(temp, jpeg);
  try {
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}

/** Removes every cached size of one asset. */
export async function removeCachedThumbnails(layout: StorageLayout, hash: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(layout.thumbs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const prefix = `${hash}_`;
  await Promise.all(
    names
      .filter((n) => n.startsWith(prefix))
      .map((n) => fs.rm(path.join(layout.thumbs, n), { force: true })),
  );
}
