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

// Compile-time checks: the record (asset-record.ts) is the files' attributes less the
// content digest, and the mapper below copies each of its optional fields.
// Exact: optional fields and readonly count too (mutual assignability would let them by).
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type OptionalKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];
true satisfies Same<AssetRecord, Omit<AssetAttributes, 'content_sha256'>>;
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
  };
  for (const key of OPTIONAL_FIELDS) {
    const value = row[key];
    if (value !== null && value !== '') record[key] = value;
  }
  return record;
}

/** The attributes a file carries for a record (the same fields, under the same names). */
export function toAssetAttributes(record: AssetRecord): AssetAttributes {
  return { ...record, tags: [...record.tags] };
}

/** The attributes a file carries for its index row: the record plus the content digest. */
export function attributesFromRow(row: AssetRow): AssetAttributes {
  const attrs = toAssetAttributes(toAssetRecord(row));
  if (row.content_sha256 !== null) attrs.content_sha256 = row.content_sha256;
  return attrs;
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
    path,
    size,
  };
}
