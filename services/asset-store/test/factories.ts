import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AssetRow, NewAssetRow } from '../src/assets/asset.table.js';
import type { Database } from '../src/db/database.js';

let nextTimestamp = 1_700_000_000_000;

/** A fresh, strictly increasing timestamp, as the service would issue. */
export function freshTimestamp(): number {
  nextTimestamp += 1000;
  return nextTimestamp;
}

/**
 * An index row only (no file): enough for list and search, which read nothing but the
 * index. Every field can be overridden; hash and timestamp are unique by default.
 */
export async function insertAssetRow(
  db: Kysely<Database>,
  fields: Partial<NewAssetRow> = {},
): Promise<AssetRow> {
  const timestamp = fields.timestamp ?? freshTimestamp();
  const hash = fields.hash ?? randomBytes(32).toString('hex');
  return db
    .insertInto('asset')
    .values({
      hash,
      timestamp,
      mime_type: 'application/octet-stream',
      tags: [],
      path: `${timestamp}_${hash}.bin`,
      size: 0,
      ...fields,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
