import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { FolderSync } from '../folder-sync.js';
import { discardFile } from '../staged-file.js';
import { readIfExists, type AssetAttributes, type AttributeStore } from '../attributes.js';
import { parseSidecar, sidecarName } from '../sidecar-format.js';

/**
 * `.meta/<filename>.json`: the whole set as one JSON object, written atomically. A name at
 * the 255-byte cap leaves no room for `.json`; such a file's sidecar is named after its
 * identity alone, `.meta/{timestamp}_{hash}.json`, which no other sidecar name can be (an
 * asset's name always has its extension before the `.json`).
 */
export class SidecarAttributeStore implements AttributeStore {
  readonly #metaSync: FolderSync;

  constructor(private readonly metaDir: string) {
    this.#metaSync = new FolderSync(metaDir);
  }

  /** Where a file's sidecar lives (filenames are unique, so the base name suffices). */
  sidecarPath(file: string): string {
    return path.join(this.metaDir, sidecarName(path.basename(file)));
  }

  async read(file: string): Promise<AssetAttributes | undefined> {
    const text = await readIfExists(this.sidecarPath(file));
    return text === undefined ? undefined : parseSidecar(text);
  }

  async write(file: string, attrs: AssetAttributes): Promise<void> {
    await this.#store(this.sidecarPath(file), attrs);
  }

  async writeNew(_file: string, name: string, attrs: AssetAttributes): Promise<void> {
    // Exclusive: a new file's sidecar never replaces one another ingest kept (EEXIST).
    await this.#store(this.sidecarPath(name), attrs, true);
  }

  async #store(target: string, attrs: AssetAttributes, exclusive = false): Promise<void> {
    await fs.mkdir(this.metaDir, { recursive: true });
    // A short temporary name: the target's own name may already be near the 255-byte cap.
    const temp = path.join(this.metaDir, `.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await fs.open(temp, 'w');
    try {
      await handle.writeFile(JSON.stringify(attrs), 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      if (exclusive) {
        await fs.link(temp, target);
        await discardFile(temp);
      } else await fs.rename(temp, target);
    } catch (err) {
      await discardFile(temp);
      throw err;
    }
    // The rename is durable only once the folder is: without this a crash could lose a
    // sidecar whose file an ingest has already acknowledged. Shared by concurrent writes.
    await this.#metaSync.sync();
  }

  /**
   * The unlink is synchronous: every native write ends here and almost always finds no
   * sidecar, and one quick unlink costs less than a thread-pool round trip. A sidecar that
   * was there is the file's truth until its removal is durable, so the folder is flushed.
   */
  async remove(file: string): Promise<void> {
    try {
      fsSync.unlinkSync(this.sidecarPath(file));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    await this.#metaSync.sync();
  }
}
