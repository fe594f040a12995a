import {
  ATTRIBUTE_KEYS,
  decodeOrUndefined,
  encodeAttributes,
  type AssetAttributes,
} from '../attributes.js';

/**
 * S3's cap on user metadata: the header names (`x-amz-meta-…`) and values together, in
 * bytes. Counted with the full header names, which is stricter than some servers need.
 */
const MAX_METADATA_BYTES = 2048;

/** What an HTTP header carries unchanged: printable ASCII, no spaces at either end. */
const HEADER_SAFE = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;

/** The metadata key of an attribute: sent as `x-amz-meta-can-<key>` (contract). */
function metadataKey(key: string): string {
  return `can-${key}`;
}

/**
 * The attributes as object metadata (`x-amz-meta-can-<key>`, the same keys and values as
 * the xattrs), or undefined when the set does not fit: over S3's 2 KB, or a value a header
 * cannot carry as is (non-ASCII text, line breaks). Such a set goes to the sidecar whole,
 * as on file systems without xattrs, rather than be stored in some other spelling.
 */
export function toObjectMetadata(attrs: AssetAttributes): Record<string, string> | undefined {
  const metadata: Record<string, string> = {};
  let bytes = 0;
  for (const [key, value] of encodeAttributes(attrs)) {
    if (!HEADER_SAFE.test(value)) return undefined;
    const name = metadataKey(key);
    bytes += `x-amz-meta-${name}`.length + value.length;
    metadata[name] = value;
  }
  return bytes <= MAX_METADATA_BYTES ? metadata : undefined;
}

/**
 * Attributes from object metadata, or undefined when the object carries no valid set. Names
 * are matched without regard to case or `-`/`_`: some gateways hand `content_sha256` back
 * as `content-sha256`.
 */
export function fromObjectMetadata(
  metadata: Record<string, string> | undefined,
): AssetAttributes | undefined {
  if (!metadata) return undefined;
  const normalise = (name: string) => name.toLowerCase().replace(/_/g, '-');
  const byName = new Map<string, string>();
  for (const [name, value] of Object.entries(metadata)) byName.set(normalise(name), value);
  if (!ATTRIBUTE_KEYS.some((key) => byName.has(normalise(metadataKey(key))))) return undefined;
  return decodeOrUndefined((key) => byName.get(normalise(metadataKey(key))));
}
