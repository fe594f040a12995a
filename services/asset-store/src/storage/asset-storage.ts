import fs from 'node:fs/promises';
import type { Logger } from 'pino';
import type { AttributeStore } from './attributes.js';
import { createAttributeStore } from './fallback-attribute-store.js';
import { storageLayout, type StorageLayout } from './layout.js';

/** The storage root as the app uses it: where things are, and the attribute port. */
export interface AssetStorage {
  layout: StorageLayout;
  attributes: AttributeStore;
}

/**
 * Prepares `storage_root` for serving: creates it and its dot-folders, and removes what a
 * crash left in `.tmp/` (never acknowledged, so never an asset).
 */
export async function openAssetStorage(
  storageRoot: string,
  logger: Pick<Logger, 'warn' | 'info'>,
): Promise<AssetStorage> {
  const layout = storageLayout(storageRoot);
  await fs.mkdir(layout.root, { recursive: true });
  const swept = await sweepTmp(layout);
  if (swept > 0) logger.info({ swept }, 'removed unfinished uploads from .tmp');
  await fs.mkdir(layout.tmp, { recursive: true });
  await fs.mkdir(layout.meta, { recursive: true });
  return { layout, attributes: await createAttributeStore(layout.meta, logger) };
}

/** Empties `.tmp/`; returns how many entries were removed. */
export async function sweepTmp(layout: StorageLayout): Promise<number> {
  let entries: string[];
  try {
    entries = await fs.readdir(layout.tmp);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  await fs.rm(layout.tmp, { recursive: true, force: true });
  return entries.length;
}
