import path from 'node:path';
import { databaseTarget, openMigrated, type DatabaseHandle } from '@svc/database';
import type { DatabaseTarget } from '@svc/database';
import { migrations } from './migrations/index.js';
import type { AssetTable } from '../assets/asset.table.js';
import type { AttributeIntentTable } from '../assets/attribute-intent.table.js';
import type { AssetEventHeadTable, AssetEventTable } from '../changes/change.table.js';
import type {
  WebhookAttemptTable,
  WebhookDeliveryTable,
  WebhookTable,
} from '../webhooks/webhook.table.js';
import type { AssetTagTable } from '../search/asset-tag.table.js';
import type { AssetTextTable } from '../search/asset-text.table.js';
import type { JobTable } from '../jobs/job.table.js';
import type { TimestampAllocatorTable } from '../timestamps/timestamp-allocator.table.js';

/** The asset-store schema as Kysely sees it. */
export interface Database {
  asset: AssetTable;
  asset_event: AssetEventTable;
  asset_event_head: AssetEventHeadTable;
  asset_tag: AssetTagTable;
  asset_text: AssetTextTable;
  attribute_intent: AttributeIntentTable;
  job: JobTable;
  timestamp_allocator: TimestampAllocatorTable;
  webhook: WebhookTable;
  webhook_delivery: WebhookDeliveryTable;
  webhook_attempt: WebhookAttemptTable;
}

/** The one Postgres schema this service owns. */
export const SCHEMA = 'asset_store';

/** Where the index lives: `database_url`, else PGlite under `<storage_root>/.index`. */
export function targetFor(databaseUrl: string | undefined, storageRoot: string): DatabaseTarget {
  return databaseTarget(databaseUrl, path.join(storageRoot, '.index'));
}

/** Opens the index and brings its schema to the latest migration. */
export function openIndex(target: DatabaseTarget): Promise<DatabaseHandle<Database>> {
  return openMigrated<Database>(target, SCHEMA, migrations);
}

/** What the app reads from the index: its queries, its health probe, its pipelined session. */
export function indexPorts(index: DatabaseHandle<Database>) {
  return {
    db: index.db,
    ping: index.ping,
    indexSession: index.pipelined,
  };
}
