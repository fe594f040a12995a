import fs from 'node:fs';
import path from 'node:path';
import type { AssetStorage } from './asset-storage.js';
import type { AssetAttributes } from './attributes.js';
import { FolderSync, fsyncFile } from './folder-sync.js';
import type { OwnRenames } from './own-renames.js';
import { discardFile } from './staged-file.js';

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
    let renamed = false;
    const durable = (async () => {
      await attributes.writeNew(tmpPath, filename, attrs);
      await fsyncFile(tmpPath);
      this.ownRenames?.announce(filename);
      // Synchronous: one quick metadata syscall costs less than a thread-pool round trip;
      // only the fsyncs wait for the disk.
      fs.renameSync(tmpPath, finalPath);
      renamed = true;
      await this.#rootSync.sync();
    })();
    return {
      finalPath,
      durable,
      undo: async () => {
        await durable.catch(() => undefined);
        // Native attributes go with the file; a sidecar is kept under the final name.
        await attributes.remove(finalPath).catch(() => undefined);
        await discardFile(renamed ? finalPath : tmpPath);
      },
    };
  }
}
