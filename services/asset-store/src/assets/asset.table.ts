import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import { ATTRIBUTE_KEYS } from '../storage/attributes.js';

/** One row per stored asset: every record field plus where the file is. */
export interface AssetTable {
  hash: string;
  timestamp: number;
  mime_type: string;
  application: string | null;
  user: string | null;
  tags: string[];
  description: string | null;
  human_filename: string | null;
  human_path: string | null;
  is_trashed: Generated<boolean>;
  is_corrupted: Generated<boolean>;
  /** Plain SHA-256 of the content, lowercase hex; null until known for older files. */
  content_sha256: string | null;
  /**
   * Pixels after EXIF orientation; null for non-images, images sharp cannot read, and
   * images indexed before these were kept until the backfill job probes them.
   */
  width: number | null;
  height: number | null;
  /** EXIF `DateTimeOriginal`, epoch ms; null when none. */
  taken_at: number | null;
  /** Path of the file relative to `storage_root`, with `/` separators. */
  path: string;
  size: number;
  indexed_at: Generated<Date>;
}

export type AssetRow = Selectable<AssetTable>;
export type NewAssetRow = Insertable<AssetTable>;
export type AssetRowUpdate = Updateable<AssetTable>;

/**
 * Every column a stored asset's row is written with: each attribute the file carries, plus
 * where the file is and its size (`indexed_at` is the index's own).
 */
export const ASSET_ROW_COLUMNS = [
  ...ATTRIBUTE_KEYS,
  'path',
  'size',
] as const satisfies readonly (keyof AssetTable)[];
