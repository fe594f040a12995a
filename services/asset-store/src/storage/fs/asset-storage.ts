import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { lockFolder } from '@svc/database';
import type { Logger } from 'pino';
import type { AttributeStore } from '../attributes.js';
import { createAttributeStore } from './fallback-attribute-store.js';
import { FileIdentities } from './file-identities.js';
import { storageLayout, UPLOADS_FOLDER, type StorageLayout } from '../layout.js';

/** The storage root as the app uses it: where things are, and the attribute port. */
export interface AssetStorage {
  /** `tmp` is this process's own staging folder, inside `.tmp/`. */
  layout: StorageLayout;
  attributes: AttributeStore;
  /** Identities of files verified intact, checked by readers before serving. */
  identities: FileIdentities;
}

/**
 * A staging folder that has no lock yet is its new owner's for this long: the owner creates
 * the folder and locks it within moments.
 */
const UNLOCKED_GRACE_MS = 60_000;

/**
 * Prepares `storage_root` for serving: creates it and its dot-folders, takes a staging
 * folder of its own under `.tmp/` (locked with this process's pid, host and boot id), and
 * removes only what is provably abandoned there (see `sweepTmp`). Another process on the
 * same storage root keeps its uploads in flight.
 */
export async function openAssetStorage(
  storageRoot: string,
  logger: Pick<Logger, 'warn' | 'info'>,
): Promise<AssetStorage> {
  const shared = storageLayout(storageRoot);
  await fs.mkdir(shared.uploads, { recursive: true });
  const own = path.join(shared.tmp, `${process.pid}-${randomBytes(6).toString('hex')}`);
  await fs.mkdir(own);
  lockFolder(own);
  const { swept, kept } = await sweepTmp(shared.tmp, path.basename(own));
  if (swept > 0) logger.info({ swept }, 'removed unfinished uploads from .tmp');
  if (kept.length > 0) {
    logger.warn(
      { kept },
      'kept staging folders of processes that may still run (delete those whose process is gone)',
    );
  }
  await fs.mkdir(shared.meta, { recursive: true });
  const layout = { ...shared, tmp: own };
  const attributes = await createAttributeStore(shared.meta, logger);
  return { layout, attributes, identities: new FileIdentities() };
}

/**
 * Gives back this process's staging folder at shutdown, once nothing stages there: the
 * requests have drained and the index is closed, so whatever is left never became an asset
 * (a file is renamed into place before its ingest is acknowledged). The next start's
 * "removed unfinished uploads" then speaks of crashes only.
 */
export async function releaseStagingFolder(layout: StorageLayout): Promise<void> {
  await fs.rm(layout.tmp, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Removes from `.tmp/` what is provably abandoned (never `.tmp/uploads/`, whose resumable
 * uploads expire on their own clock): a loose file (only an earlier version
 * staged there), and a staging folder whose owner is gone, as its lock says (a process
 * on this host that no longer runs, or ran before a reboot); a folder with no lock once
 * the grace for its owner to take it has passed. A folder a live process holds, or one
 * locked on another host (which cannot be checked from here), is kept and named; `own`,
 * the caller's folder, is left alone.
 */
export async function sweepTmp(
  tmp: string,
  own?: string,
): Promise<{ swept: number; kept: string[] }> {
  let swept = 0;
  const kept: string[] = [];
  let entries;
  try {
    entries = await fs.readdir(tmp, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { swept, kept };
    throw err;
  }
  for (const entry of entries) {
    // This process's own folder is neither abandoned nor another's to report.
    if (entry.name === own) continue;
    const full = path.join(tmp, entry.name);
    // Resumable uploads outlive their process; they go when they expire (`uploads/`).
    if (entry.name === UPLOADS_FOLDER && entry.isDirectory()) continue;
    if (!entry.isDirectory()) {
      await fs.rm(full, { force: true });
      swept++;
      continue;
    }
    const fate = await fateOf(full);
    if (fate === 'abandoned') {
      // Retried: another instance starting beside this one may be removing it too, and its
      // look at the lock (a break mark) can land a file in it between our unlink and rmdir.
      await fs.rm(full, { recursive: true, force: true, maxRetries: 5 });
      swept++;
    } else if (fate === 'held') {
      kept.push(entry.name);
    }
  }
  return { swept, kept };
}

/**
 * What becomes of a staging folder: `gone` when another instance starting beside this one
 * swept it first (between this sweep's listing and its look at the folder).
 */
async function fateOf(dir: string): Promise<'abandoned' | 'held' | 'gone'> {
  const locked = await fs
    .access(path.join(dir, 'service.lock'))
    .then(() => true)
    .catch(() => false);
  if (!locked) {
    const stat = await fs.stat(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!stat) return 'gone';
    return Date.now() - stat.mtimeMs > UNLOCKED_GRACE_MS ? 'abandoned' : 'held';
  }
  try {
    // Taken over only when its holder is provably gone; then it is ours to remove.
    lockFolder(dir);
    return 'abandoned';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'held';
  }
}
