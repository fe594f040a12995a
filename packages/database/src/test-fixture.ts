import { sql, type Kysely, type Migration } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { migrateToLatest } from './migrate.js';
import { openDatabase, type DatabaseHandle } from './open-database.js';

/** The one table these tests use. */
export interface Db {
  item: { id: number; big: number };
}

export const SCHEMA = 'config_test';

export const migrations: Record<string, Migration> = {
  '20260101000000_create_item': {
    up: async (db: Kysely<unknown>) => {
      await sql`create table item (id int primary key, big bigint not null)`.execute(db);
    },
  },
};

/** A migrated database of the test file's own, and how to close and drop it. */
export async function openTestHandle(
  label: string,
): Promise<{ testDb: TestDatabase; handle: DatabaseHandle<Db>; close: () => Promise<void> }> {
  const testDb = await createTestDatabase(label);
  const handle = await openDatabase<Db>(testDb.target, SCHEMA);
  await migrateToLatest(handle.db, SCHEMA, migrations);
  return {
    testDb,
    handle,
    close: async () => {
      await handle.close();
      await testDb.drop();
    },
  };
}
