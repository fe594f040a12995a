import path from 'node:path';
import { databaseTarget, migrateToLatest, openDatabase, type DatabaseHandle } from '@svc/database';
import type { DatabaseTarget } from '@svc/database';
import { migrations } from './migrations/index.js';
import type { AssetTable } from '../assets/asset.table.js';
import type { AttributeIntentTable } from '../assets/attribute-intent.table.js';
import type { AssetTagTable } from '../search/asset-tag.table.js';

/** The asset-store schema as Kysely sees it. */
export interface Database {
  asset: AssetTable;
  asset_tag: AssetTagTable;
  attribute_intent: AttributeIntentTable;
}

/** The one Postgres schema this service owns. */
export const SCHEMA = 'asset_store';

/** Where the index lives: `database_url`, else PGlite under `<storage_root>/.index`. */
export function targetFor(databaseUrl: string | undefined, storageRoot: string): DatabaseTarget {
  return databaseTarget(databaseUrl, path.join(storageRoot, '.index'));
}

/** Opens the index and brings its schema to the latest migration. */
export async function openIndex(target: DatabaseTarget): Promise<DatabaseHandle<Database>> {
  const handle = await openDatabase<Database>(target, SCHEMA);
  try {
    await migrateToLatest(handle.db, SCHEMA, migrations);
  } catch (err) {
    await handle.close();
    throw err;
  }
  return handle;
}
