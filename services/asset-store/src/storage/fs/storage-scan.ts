import fs from 'node:fs/promises';
import path from 'node:path';
import { isInternal, toRelativePath, type StorageLayout } from '../layout.js';

/** One regular file found under the storage root. */
export interface ScannedFile {
  absolute: string;
  /** Relative to the root with `/` separators, as the index stores it. */
  relative: string;
}

/**
 * Every regular file under the root, depth first (or only its top level), skipping
 * dot-folders and dot-files (the service's own). Streams, so a huge tree is never held in
 * memory at once.
 */
export async function* scanStorage(
  layout: StorageLayout,
  { recursive = true } = {},
): AsyncGenerator<ScannedFile> {
  const pending = [layout.root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries;
    try {
      entries = await fs.opendir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    for await (const entry of entries) {
      const absolute = path.join(dir, entry.name);
      const relative = toRelativePath(layout, absolute);
      if (isInternal(relative)) continue;
      if (entry.isDirectory()) {
        if (recursive) pending.push(absolute);
      } else if (entry.isFile()) yield { absolute, relative };
    }
  }
}
