import fs from 'node:fs';
import path from 'node:path';
import type { AssetStorage } from './asset-storage.js';
import type { AssetAttributes } from '../attributes.js';
import { assetErrors } from '../../errors.js';
import { FolderSync, fsyncFile } from '../folder-sync.js';
import type { OwnRenames } from './own-renames.js';
import { discardFile } from '../staged-file.js';

/** A staged file on its way into the root, as `AssetFiles.place` started it. */
export interface Placement {
  /** The file's absolute path once in place. */
  finalPath: string;
  /** Resolves once the file, its attributes and its name in the root are on the disk. */
  durable: Promise<void>;
  /** Removes whatever of the placement got done (after it settled): file and attributes. */
  undo(): Promise<void>;
}

/**
 * Puts staged files into the storage root durably: attributes, fsync, rename, folder fsync.
 * The attributes (or the sidecar, named after the final name) come before the one fsync,
 * which then covers them too. One folder fsync covers every rename before it.
 */
export class AssetFiles {
  readonly #rootSync: FolderSync;

  constructor(
    private readonly storage: Pick<AssetStorage, 'layout' | 'attributes'>,
    /** Told of each file renamed into the root, so the verifier's watch skips that echo. */
    private readonly ownRenames?: OwnRenames,
  ) {
    this.#rootSync = new FolderSync(storage.layout.root);
  }

  /** Starts placing `tmpPath` as `filename` with `attrs`; see `Placement`. */
  place(tmpPath: string, filename: string, attrs: AssetAttributes): Placement {
    const { layout, attributes } = this.storage;
    const finalPath = path.join(layout.root, filename);
    let placed = false;
    let taken = false;
    const durable = (async () => {
      await attributes.writeNew(tmpPath, filename, attrs);
      await fsyncFile(tmpPath);
      this.ownRenames?.announce(filename);
      placed = placeExclusively(tmpPath, finalPath);
      taken = !placed;
      if (taken) throw assetErrors.alreadyExists();
      await this.#rootSync.sync();
    })();
    return {
      finalPath,
      durable,
      undo: async () => {
        await durable.catch(() => undefined);
        // Only what this placement made: a file (or sidecar) of that name that was there
        // already belongs to another ingest, another instance's perhaps, and stays.
        if (!taken) {
          // Native attributes go with the file; a sidecar is kept under the final name.
          await attributes.remove(finalPath).catch(() => undefined);
        }
        await discardFile(placed ? finalPath : tmpPath);
      },
    };
  }
}

/**
 * Moves `tmpPath` to `finalPath` unless a file of that name exists: a hard link, which
 * fails with EEXIST where a rename would silently replace the other file, then the unlink
 * of the staged name. False when the name is taken. Synchronous: quick metadata syscalls
 * cost less than thread-pool round trips; only the fsyncs wait for the disk.
 */
function placeExclusively(tmpPath: string, finalPath: string): boolean {
  try {
    fs.linkSync(tmpPath, finalPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  fs.unlinkSync(tmpPath);
  return true;
}
