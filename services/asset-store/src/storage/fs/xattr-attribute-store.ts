import {
  ATTRIBUTE_KEYS,
  decodeOrUndefined,
  encodeAttributes,
  isMissingAttribute,
  type AssetAttributes,
  type AttributeKey,
  type AttributeStore,
} from '../attributes.js';

/** The synchronous half of fs-xattr. */
interface XattrModule {
  getAttributeSync(path: string, attr: string): Buffer;
  setAttributeSync(path: string, attr: string, value: Buffer | string): void;
  removeAttributeSync(path: string, attr: string): void;
  listAttributesSync(path: string): string[];
}

const XATTR_PREFIX = 'user.can.';

/**
 * Every key, the two short values that fit in the inode first. ext4 fills the inode's own
 * small attribute space before an external block, and each write to that block costs more
 * the more entries it holds, so the short values go where they are cheapest to write
 * (bench/NOTES.md).
 */
const INODE_FIRST: readonly AttributeKey[] = ['timestamp', 'is_trashed'];

/** `user.can.<key>` extended attributes (Linux, macOS) through fs-xattr. */
export class XattrAttributeStore implements AttributeStore {
  // Built here rather than at load: attributes.js, which lists the keys, imports this module.
  readonly #newFileOrder: readonly AttributeKey[] = [
    ...INODE_FIRST,
    ...ATTRIBUTE_KEYS.filter((key) => !INODE_FIRST.includes(key)),
  ];

  constructor(private readonly xattr: XattrModule) {}

  /** Loads fs-xattr lazily: it is a native module that Windows does not have. */
  static async load(): Promise<XattrAttributeStore> {
    return new XattrAttributeStore(await import('fs-xattr'));
  }

  // The calls are synchronous on purpose: each is one quick metadata syscall, while the
  // async variants queue in libuv's small thread pool behind every upload's fsync.

  read(file: string): Promise<AssetAttributes | undefined> {
    return attempt(() => {
      const names = new Set(this.xattr.listAttributesSync(file));
      if (!names.has(`${XATTR_PREFIX}hash`)) return undefined;
      const values = new Map<AttributeKey, string>();
      for (const key of ATTRIBUTE_KEYS) {
        if (names.has(XATTR_PREFIX + key)) {
          values.set(key, this.xattr.getAttributeSync(file, XATTR_PREFIX + key).toString('utf8'));
        }
      }
      return decodeOrUndefined((key) => values.get(key));
    });
  }

  write(file: string, attrs: AssetAttributes): Promise<void> {
    return attempt(() => {
      const existing = new Set(this.xattr.listAttributesSync(file));
      const encoded = encodeAttributes(attrs);
      for (const key of ATTRIBUTE_KEYS) {
        const value = encoded.get(key);
        if (value !== undefined) this.xattr.setAttributeSync(file, XATTR_PREFIX + key, value);
        else if (existing.has(XATTR_PREFIX + key)) this.removeOne(file, key);
      }
    });
  }

  writeNew(file: string, _name: string, attrs: AssetAttributes): Promise<void> {
    return attempt(() => {
      const encoded = encodeAttributes(attrs);
      for (const key of this.#newFileOrder) {
        const value = encoded.get(key);
        if (value !== undefined) this.xattr.setAttributeSync(file, XATTR_PREFIX + key, value);
      }
    });
  }

  remove(file: string): Promise<void> {
    return attempt(() => {
      for (const key of ATTRIBUTE_KEYS) this.removeOne(file, key);
    });
  }

  private removeOne(file: string, key: AttributeKey): void {
    try {
      this.xattr.removeAttributeSync(file, XATTR_PREFIX + key);
    } catch (err) {
      if (!isMissingAttribute(err)) throw err;
    }
  }
}

/** Runs a synchronous body; a throw becomes the rejection (the error kept as it is). */
function attempt<T>(body: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(body()));
}
