import { databaseTarget, openMigrated, type DatabaseHandle } from '@svc/database';
import type { DatabaseTarget } from '@svc/database';
import type { HandleTable } from '../handles/handle.table.js';
import type { MessageTable } from '../messages/message.table.js';
import type { PushSubscriptionTable } from '../push/push-subscription.table.js';
import type { RateBucketTable } from '../rate-limit/rate-bucket.table.js';
import type { LogNodeTable, LogStateTable, SigchainLinkTable } from '../translog/log.tables.js';
import { migrations } from './migrations/index.js';

/** The handle-relay schema as Kysely sees it. */
export interface Database {
  handle: HandleTable;
  message: MessageTable;
  push_subscription: PushSubscriptionTable;
  rate_bucket: RateBucketTable;
  sigchain_link: SigchainLinkTable;
  log_node: LogNodeTable;
  log_state: LogStateTable;
}

/** The one Postgres schema this service owns. */
export const SCHEMA = 'handle_relay';

/** `db` is a `postgres://` URL or the folder of the embedded database. */
export function targetFor(db: string): DatabaseTarget {
  return databaseTarget(db, db);
}

/** Opens the database and brings its schema to the latest migration. */
export function openStore(target: DatabaseTarget): Promise<DatabaseHandle<Database>> {
  return openMigrated<Database>(target, SCHEMA, migrations);
}
