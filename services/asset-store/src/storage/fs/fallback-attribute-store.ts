import type { Logger } from 'pino';
import { AlternateStreamAttributeStore } from './ads-attribute-store.js';
import { isRefusal, type AssetAttributes, type AttributeStore } from '../attributes.js';
import { fsyncFile } from '../folder-sync.js';
import { SidecarAttributeStore } from './sidecar-attribute-store.js';
import { XattrAttributeStore } from './xattr-attribute-store.js';

/**
 * Native attributes first; per file, when the file system refuses them (no user xattrs, or
 * values too large), the whole set goes to the sidecar instead and a warning is logged
 * once. A sidecar, when present, is the file's truth: it is removed whenever the native
 * write succeeds again. Either way a rewrite is on the disk when `write` resolves.
 */
export class FallbackAttributeStore implements AttributeStore {
  #warned = false;

  constructor(
    private readonly native: AttributeStore,
    private readonly sidecar: SidecarAttributeStore,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  async read(file: string): Promise<AssetAttributes | undefined> {
    const fromSidecar = await this.sidecar.read(file);
    if (fromSidecar) return fromSidecar;
    try {
      return await this.native.read(file);
    } catch (err) {
      if (isRefusal(err)) return undefined;
      throw err;
    }
  }

  async write(file: string, attrs: AssetAttributes): Promise<void> {
    try {
      await this.native.write(file, attrs);
    } catch (err) {
      if (!isRefusal(err)) throw err;
      this.warnOnce(err);
      await this.sidecar.write(file, attrs);
      // A half-written native set must not contradict the sidecar for other readers.
      await this.native.remove(file).catch(() => undefined);
      return;
    }
    // A rewrite (PATCH, trash, restore, a verifier finding) comes after the ingest's fsync:
    // unflushed, a crash could bring the old set back for a rebuild to put over the newer
    // row. Flushed out here, since a failed flush is not the file system refusing the set.
    await fsyncFile(file);
    await this.sidecar.remove(file);
  }

  async writeNew(file: string, name: string, attrs: AssetAttributes): Promise<void> {
    try {
      await this.native.writeNew(file, name, attrs);
    } catch (err) {
      if (!isRefusal(err)) throw err;
      this.warnOnce(err);
      await this.sidecar.writeNew(file, name, attrs);
      await this.native.remove(file).catch(() => undefined);
    }
  }

  async remove(file: string): Promise<void> {
    await this.sidecar.remove(file);
    try {
      await this.native.remove(file);
    } catch (err) {
      if (!isRefusal(err) && (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  private warnOnce(err: unknown): void {
    if (this.#warned) return;
    this.#warned = true;
    this.logger.warn(
      { code: (err as NodeJS.ErrnoException).code },
      'file system refused extended attributes; using .meta/ sidecars where needed',
    );
  }
}

/** The platform's attribute store: ADS on Windows, xattrs elsewhere, sidecar as fallback. */
export async function createAttributeStore(
  metaDir: string,
  logger: Pick<Logger, 'warn'>,
  platform: NodeJS.Platform = process.platform,
): Promise<AttributeStore> {
  const native =
    platform === 'win32' ? new AlternateStreamAttributeStore() : await XattrAttributeStore.load();
  return new FallbackAttributeStore(native, new SidecarAttributeStore(metaDir), logger);
}
