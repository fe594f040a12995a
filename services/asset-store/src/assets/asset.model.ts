import type { AssetAttributes } from '../storage/attributes.js';
import type { AssetRecord } from './asset-record.js';
import type { AssetRow, NewAssetRow } from './asset.table.js';

export type { AssetRecord } from './asset-record.js';

/** The optional text fields of a record, in the order they are shown. */
export const OPTIONAL_FIELDS = [
  'application',
  'user',
  'description',
  'human_filename',
  'human_path',
] as const;

/** The facts probed from an image's content, kept in the row and the attributes alike. */
export const PROBED_FIELDS = ['width', 'height', 'taken_at'] as const;

// Compile-time checks: the record (asset-record.ts) is the files' attributes less the
// content digest, plus `size`, with the probed facts always present (null when unknown);
// and the mapper below copies each of its optional fields.
// Exact: optional fields and readonly count too (mutual assignability would let them by).
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type OptionalKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];
type Flat<T> = { [K in keyof T]: T[K] };
type Probed = {
  [K in (typeof PROBED_FIELDS)[number]]-?: Exclude<AssetAttributes[K], undefined> | null;
};
true satisfies Same<
  AssetRecord,
  Flat<
    Omit<AssetAttributes, 'content_sha256' | (typeof PROBED_FIELDS)[number]> &
      Probed & { size: number }
  >
>;
true satisfies Same<(typeof OPTIONAL_FIELDS)[number], OptionalKeys<AssetRecord>>;

/** The one mapper from an index row to the record the API shows. */
export function toAssetRecord(row: AssetRow): AssetRecord {
  const record: AssetRecord = {
    hash: row.hash,
    mime_type: row.mime_type,
    tags: [...row.tags],
    timestamp: Number(row.timestamp),
    is_trashed: row.is_trashed,
    is_corrupted: row.is_corrupted,
    size: Number(row.size),
    width: row.width,
    height: row.height,
    taken_at: row.taken_at === null ? null : Number(row.taken_at),
  };
  for (const key of OPTIONAL_FIELDS) {
    const value = row[key];
    if (value !== null && value !== '') record[key] = value;
  }
  return record;
}

/**
 * The attributes a file carries for its index row: the record less `size`, plus the
 * content digest; the probed facts only where known.
 */
export function attributesFromRow(row: AssetRow): AssetAttributes {
  const { width, height, taken_at, ...rest } = toAssetRecord(row);
  const attrs: AssetAttributes = withoutSize(rest);
  if (row.content_sha256 !== null) attrs.content_sha256 = row.content_sha256;
  Object.assign(attrs, knownFacts({ width, height, taken_at }));
  return attrs;
}

/** The probed facts that are known, as attributes carry them (absent when null). */
export function knownFacts(facts: {
  width: number | null;
  height: number | null;
  taken_at: number | null;
}): Pick<AssetAttributes, (typeof PROBED_FIELDS)[number]> {
  const known: Pick<AssetAttributes, (typeof PROBED_FIELDS)[number]> = {};
  for (const key of PROBED_FIELDS) {
    const value = facts[key];
    if (value !== null) known[key] = value;
  }
  return known;
}

function withoutSize<T extends { size: number }>(record: T): Omit<T, 'size'> {
  const copy: Partial<T> = { ...record };
  delete copy.size;
  return copy as Omit<T, 'size'>;
}

/** The index row for a file's attributes, stored at `path` (relative to the root). */
export function rowFromAttributes(attrs: AssetAttributes, path: string, size: number): NewAssetRow {
  return {
    hash: attrs.hash,
    timestamp: attrs.timestamp,
    mime_type: attrs.mime_type,
    application: attrs.application ?? null,
    user: attrs.user ?? null,
    tags: attrs.tags,
    description: attrs.description ?? null,
    human_filename: attrs.human_filename ?? null,
    human_path: attrs.human_path ?? null,
    is_trashed: attrs.is_trashed,
    is_corrupted: attrs.is_corrupted,
    content_sha256: attrs.content_sha256 ?? null,
    width: attrs.width ?? null,
    height: attrs.height ?? null,
    taken_at: attrs.taken_at ?? null,
    path,
    size,
  };
}
