import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';

/**
 * What the files alone say about an asset (contract: `user.can.<key>`), so the index can
 * be rebuilt from the storage root. Optional text fields are absent when unknown.
 */
export interface AssetAttributes {
  hash: string;
  timestamp: number;
  mime_type: string;
  application?: string;
  user?: string;
  tags: string[];
  description?: string;
  human_filename?: string;
  human_path?: string;
  is_trashed: boolean;
  is_corrupted: boolean;
}

/** The port: one set of attributes per asset file. */
export interface AttributeStore {
  /** The file's attributes, or undefined when it has none (or they are unreadable). */
  read(file: string): Promise<AssetAttributes | undefined>;
  /** Replaces the file's whole set. */
  write(file: string, attrs: AssetAttributes): Promise<void>;
  /** Drops the file's attributes wherever they are kept; fine when there are none. */
  remove(file: string): Promise<void>;
}

/** Every key, in the contract's order. */
export const ATTRIBUTE_KEYS = [
  'hash',
  'timestamp',
  'mime_type',
  'application',
  'user',
  'tags',
  'description',
  'human_filename',
  'human_path',
  'is_trashed',
  'is_corrupted',
] as const;

type AttributeKey = (typeof ATTRIBUTE_KEYS)[number];

/** The UTF-8 text each present key is stored as. */
export function encodeAttributes(attrs: AssetAttributes): Map<AttributeKey, string> {
  const out = new Map<AttributeKey, string>();
  for (const key of ATTRIBUTE_KEYS) {
    const value = attrs[key];
    if (value === undefined) continue;
    out.set(key, key === 'tags' ? JSON.stringify(value) : String(value));
  }
  return out;
}

/** Reads stored texts back; undefined when a required key is missing or malformed. */
export function decodeAttributes(
  get: (key: AttributeKey) => string | undefined,
): AssetAttributes | undefined {
  const hash = get('hash');
  const timestamp = Number(get('timestamp'));
  const mimeType = get('mime_type');
  if (!hash || !/^[0-9a-f]{64}$/.test(hash) || !Number.isSafeInteger(timestamp) || !mimeType) {
    return undefined;
  }
  let tags: string[] = [];
  const rawTags = get('tags');
  if (rawTags !== undefined) {
    const parsed: unknown = JSON.parse(rawTags);
    if (!Array.isArray(parsed) || !parsed.every((t) => typeof t === 'string')) return undefined;
    tags = parsed;
  }
  const attrs: AssetAttributes = {
    hash,
    timestamp,
    mime_type: mimeType,
    tags,
    is_trashed: get('is_trashed') === 'true',
    is_corrupted: get('is_corrupted') === 'true',
  };
  for (const key of [
    'application',
    'user',
    'description',
    'human_filename',
    'human_path',
  ] as const) {
    const value = get(key);
    if (value !== undefined && value !== '') attrs[key] = value;
  }
  return attrs;
}

function parseOrUndefined(
  get: (key: AttributeKey) => string | undefined,
): AssetAttributes | undefined {
  try {
    return decodeAttributes(get);
  } catch {
    return undefined;
  }
}

interface XattrModule {
  getAttribute(path: string, attr: string): Promise<Buffer>;
  setAttribute(path: string, attr: string, value: Buffer | string): Promise<void>;
  removeAttribute(path: string, attr: string): Promise<void>;
  listAttributes(path: string): Promise<string[]>;
}

const XATTR_PREFIX = 'user.can.';

/** `user.can.<key>` extended attributes (Linux, macOS) through fs-xattr. */
export class XattrAttributeStore implements AttributeStore {
  constructor(private readonly xattr: XattrModule) {}

  /** Loads fs-xattr lazily: it is a native module that Windows does not have. */
  static async load(): Promise<XattrAttributeStore> {
    return new XattrAttributeStore(await import('fs-xattr'));
  }

  async read(file: string): Promise<AssetAttributes | undefined> {
    const names = new Set(await this.xattr.listAttributes(file));
    if (!names.has(`${XATTR_PREFIX}hash`)) return undefined;
    const values = new Map<AttributeKey, string>();
    for (const key of ATTRIBUTE_KEYS) {
      if (names.has(XATTR_PREFIX + key)) {
        values.set(key, (await this.xattr.getAttribute(file, XATTR_PREFIX + key)).toString('utf8'));
      }
    }
    return parseOrUndefined((key) => values.get(key));
  }

  async write(file: string, attrs: AssetAttributes): Promise<void> {
    const encoded = encodeAttributes(attrs);
    for (const key of ATTRIBUTE_KEYS) {
      const value = encoded.get(key);
      if (value === undefined) await this.removeOne(file, key);
      else await this.xattr.setAttribute(file, XATTR_PREFIX + key, value);
    }
  }

  async remove(file: string): Promise<void> {
    for (const key of ATTRIBUTE_KEYS) await this.removeOne(file, key);
  }

  private async removeOne(file: string, key: AttributeKey): Promise<void> {
    try {
      await this.xattr.removeAttribute(file, XATTR_PREFIX + key);
    } catch (err) {
      if (!isMissingAttribute(err)) throw err;
    }
  }
}

/** Windows alternate data streams `<file>:can.<key>`; only used on win32. */
export class AlternateStreamAttributeStore implements AttributeStore {
  async read(file: string): Promise<AssetAttributes | undefined> {
    const values = new Map<AttributeKey, string>();
    for (const key of ATTRIBUTE_KEYS) {
      const value = await readIfExists(`${file}:can.${key}`);
      if (value !== undefined) values.set(key, value);
    }
    if (!values.has('hash')) return undefined;
    return parseOrUndefined((key) => values.get(key));
  }

  async write(file: string, attrs: AssetAttributes): Promise<void> {
    const encoded = encodeAttributes(attrs);
    for (const key of ATTRIBUTE_KEYS) {
      const value = encoded.get(key);
      if (value === undefined) await fs.rm(`${file}:can.${key}`, { force: true });
      else await fs.writeFile(`${file}:can.${key}`, value, 'utf8');
    }
  }

  async remove(file: string): Promise<void> {
    for (const key of ATTRIBUTE_KEYS) await fs.rm(`${file}:can.${key}`, { force: true });
  }
}

/** `.meta/<filename>.json`: the whole set as one JSON object, written atomically. */
export class SidecarAttributeStore implements AttributeStore {
  constructor(private readonly metaDir: string) {}

  /** Where a file's sidecar lives (filenames are unique, so the base name suffices). */
  sidecarPath(file: string): string {
    return path.join(this.metaDir, `${path.basename(file)}.json`);
  }

  async read(file: string): Promise<AssetAttributes | undefined> {
    const text = await readIfExists(this.sidecarPath(file));
    if (text === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!parsed || typeof parsed !== 'object') return undefined;
    const obj = parsed as Record<string, unknown>;
    return parseOrUndefined((key) => {
      const v = obj[key];
      if (v === undefined || v === null) return undefined;
      return typeof v === 'string' ? v : JSON.stringify(v);
    });
  }

  async write(file: string, attrs: AssetAttributes): Promise<void> {
    await fs.mkdir(this.metaDir, { recursive: true });
    const target = this.sidecarPath(file);
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
      await fs.rename(temp, target);
    } catch (err) {
      await fs.rm(temp, { force: true });
      throw err;
    }
  }

  async remove(file: string): Promise<void> {
    await fs.rm(this.sidecarPath(file), { force: true });
  }
}

const REFUSED = new Set(['ENOTSUP', 'EOPNOTSUPP', 'ENOSPC', 'E2BIG', 'ERANGE', 'EPERM', 'EACCES']);

/** True for the errors a file system gives when it will not keep these attributes. */
export function isRefusal(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && REFUSED.has(code);
}

function isMissingAttribute(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENODATA' || code === 'ENOATTR' || code === 'ENOENT';
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Native attributes first; per file, when the file system refuses them (no user xattrs, or
 * values too large), the whole set goes to the sidecar instead and a warning is logged
 * once. A sidecar, when present, is the file's truth: it is removed whenever the native
 * write succeeds again.
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
    await this.sidecar.remove(file);
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
