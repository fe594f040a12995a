import path from 'node:path';

/** Where the service keeps its own things inside `storage_root`. */
export interface StorageLayout {
  root: string;
  /** Uploads in progress; swept at start. */
  tmp: string;
  /** Resumable (tus) uploads, shared by every process and kept across restarts until they expire. */
  uploads: string;
  /** Cached thumbnails. */
  thumbs: string;
  /** Attribute sidecars for files whose file system refuses xattrs. */
  meta: string;
  /** The embedded index (PGlite) when no database URL is configured. */
  index: string;
}

/** The folder of resumable uploads inside `.tmp/`, which the staging sweep leaves alone. */
export const UPLOADS_FOLDER = 'uploads';

/** The layout of one storage root (absolute paths). */
export function storageLayout(storageRoot: string): StorageLayout {
  const root = path.resolve(storageRoot);
  return {
    root,
    tmp: path.join(root, '.tmp'),
    uploads: path.join(root, '.tmp', UPLOADS_FOLDER),
    thumbs: path.join(root, '.thumbs'),
    meta: path.join(root, '.meta'),
    index: path.join(root, '.index'),
  };
}

/** True when a path relative to the root lies in (or is) a dot-folder: the service's own. */
export function isInternal(relativePath: string): boolean {
  return relativePath.split(/[\\/]/).some((segment) => segment.startsWith('.') && segment !== '.');
}

/** A file's path relative to the root with `/` separators, as the index stores it. */
export function toRelativePath(layout: StorageLayout, absolute: string): string {
  return path.relative(layout.root, absolute).split(path.sep).join('/');
}

/** The absolute path of an indexed relative path. */
export function toAbsolutePath(layout: StorageLayout, relative: string): string {
  return path.join(layout.root, ...relative.split('/'));
}

/** The parts a physical filename is built from. */
export interface FilenameParts {
  timestamp: number;
  hash: string;
  tags: readonly string[];
  ext: string;
}

/** The contract's cap on a physical file's name (and most file systems' own). */
export const MAX_FILENAME_BYTES = 255;

/** A tag as it may appear in a filename: anything outside `[A-Za-z0-9-]` becomes `-`. */
export function sanitizeTag(tag: string): string {
  // The `u` flag matches by code point, so one astral character gives one `-`, not two.
  return tag.replace(/[^A-Za-z0-9-]/gu, '-');
}

/**
 * `{timestamp}_{hash}_{tags}.{ext}` (or `{timestamp}_{hash}.{ext}` without tags), the tags
 * part cut (and a `_` left at its end dropped) so the whole name stays within 255 bytes.
 * Every character is ASCII by then, so bytes and characters agree.
 */
export function physicalFilename(parts: FilenameParts): string {
  const head = `${parts.timestamp}_${parts.hash}`;
  const tail = `.${parts.ext}`;
  const room = MAX_FILENAME_BYTES - head.length - tail.length - 1;
  const tags = parts.tags.map(sanitizeTag).join('_').slice(0, Math.max(0, room)).replace(/_+$/, '');
  return tags ? `${head}_${tags}${tail}` : `${head}${tail}`;
}

const FILENAME = /^(\d{1,16})_([0-9a-f]{64})(?:_[A-Za-z0-9_-]*)?\.([A-Za-z0-9]+)$/;

/** The identity a physical filename carries, or undefined when it is not one of ours. */
export function parsePhysicalFilename(
  name: string,
): { timestamp: number; hash: string; ext: string } | undefined {
  const m = FILENAME.exec(name);
  if (!m) return undefined;
  const timestamp = Number(m[1]);
  if (!Number.isSafeInteger(timestamp)) return undefined;
  return { timestamp, hash: m[2]!, ext: m[3]! };
}

/**
 * The extension of a physical file: the MIME type's (mime-types), else the original name's
 * when it is a plain short alphanumeric one, else `bin`.
 */
export function chooseExtension(fromMime: string | false, originalName?: string): string {
  if (fromMime) return fromMime;
  const ext = originalName ? path.extname(originalName).slice(1).toLowerCase() : '';
  return /^[a-z0-9]{1,16}$/.test(ext) ? ext : 'bin';
}
