import { decodeOrUndefined, type AssetAttributes } from './attributes.js';
import { MAX_FILENAME_BYTES, parsePhysicalFilename } from './layout.js';

// The `.meta/<name>.json` sidecar's name and text, shared by the file system's and the
// bucket's sidecars (the S3 adapter keeps an oversized set the same way).

/**
 * A file's sidecar name (filenames are unique, so the base name suffices): `<name>.json`,
 * or `{timestamp}_{hash}.json` for a name too near the 255-byte cap to take `.json`.
 */
export function sidecarName(name: string): string {
  if (Buffer.byteLength(name) + '.json'.length <= MAX_FILENAME_BYTES) return `${name}.json`;
  const identity = parsePhysicalFilename(name);
  return `${identity ? `${identity.timestamp}_${identity.hash}` : name}.json`;
}

/** A sidecar's text as attributes; undefined when it is not a readable set. */
export function parseSidecar(text: string): AssetAttributes | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const obj = parsed as Record<string, unknown>;
  return decodeOrUndefined((key) => {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}
