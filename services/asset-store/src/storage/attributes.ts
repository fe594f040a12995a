import fs from 'node:fs/promises';

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
  /** Plain SHA-256 of the content, lowercase hex; absent on files stored before it was kept. */
  content_sha256?: string;
  /**
   * An image's pixels after EXIF orientation and its EXIF date taken (epoch ms), probed
   * from the content; absent when not known (not an image sharp reads, stored before these
   * were kept, no date).
   */
  width?: number;
  height?: number;
  taken_at?: number;
}

/** The port: one set of attributes per asset file. */
export interface AttributeStore {
  /** The file's attributes, or undefined when it has none (or they are unreadable). */
  read(file: string): Promise<AssetAttributes | undefined>;
  /** Replaces the file's whole set. */
  write(file: string, attrs: AssetAttributes): Promise<void>;
  /**
   * Gives a new file, which has no attributes yet, its set while it still sits at a
   * temporary path; `name` is the name it will be renamed to (a sidecar is kept under it).
   * Nothing old to replace or clean up, so it costs less than `write`.
   */
  writeNew(file: string, name: string, attrs: AssetAttributes): Promise<void>;
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
  'content_sha256',
  'width',
  'height',
  'taken_at',
] as const;

/** One of the contract's attribute keys. */
export type AttributeKey = (typeof ATTRIBUTE_KEYS)[number];

/**
 * The UTF-8 text each present key is stored as. `is_corrupted` is ours, not one of the
 * contract's keys, and is kept only while true: absent reads as false, and every new file
 * is spared one attribute write.
 */
export function encodeAttributes(attrs: AssetAttributes): Map<AttributeKey, string> {
  const out = new Map<AttributeKey, string>();
  for (const key of ATTRIBUTE_KEYS) {
    const value = attrs[key];
    if (value === undefined || (key === 'is_corrupted' && !value)) continue;
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
  // A malformed digest is as good as none: rebuild recomputes it.
  const sha256 = get('content_sha256');
  if (sha256 !== undefined && /^[0-9a-f]{64}$/.test(sha256)) attrs.content_sha256 = sha256;
  // Probed facts: whole numbers; anything else is as good as none (the backfill probes again).
  for (const key of ['width', 'height', 'taken_at'] as const) {
    const value = get(key);
    if (value !== undefined && /^-?\d{1,16}$/.test(value)) attrs[key] = Number(value);
  }
  return attrs;
}

/** Like decodeAttributes, but undefined instead of throwing on malformed JSON. */
export function decodeOrUndefined(
  get: (key: AttributeKey) => string | undefined,
): AssetAttributes | undefined {
  try {
    return decodeAttributes(get);
  } catch {
    return undefined;
  }
}

const REFUSED = new Set(['ENOTSUP', 'EOPNOTSUPP', 'ENOSPC', 'E2BIG', 'ERANGE', 'EPERM', 'EACCES']);

/** True for the errors a file system gives when it will not keep these attributes. */
export function isRefusal(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && REFUSED.has(code);
}

/** True when an attribute (or its file) is simply not there. */
export function isMissingAttribute(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENODATA' || code === 'ENOATTR' || code === 'ENOENT';
}

/** A text file's content, or undefined when it does not exist. */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
