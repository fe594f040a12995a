import { Migrator, type Kysely, type Migration } from 'kysely';
import { openDatabase, type DatabaseHandle, type DatabaseTarget } from './open-database.js';

/**
 * Applies every pending migration, in name order, with the bookkeeping tables inside the
 * service's schema. Throws with the failing migration's name.
 */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  schema: string,
  migrations: Record<string, Migration>,
): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    migrationTableSchema: schema,
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    const reason = error instanceof Error ? error.message : JSON.stringify(error);
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`, {
      cause: error,
    });
  }
}

/**
 * Opens a service's database and brings its schema to the latest migration; a failed
 * migration closes it again (an embedded database would keep its folder locked).
 */
export async function openMigrated<DB>(
  target: DatabaseTarget,
  schema: string,
  migrations: Record<string, Migration>,
): Promise<DatabaseHandle<DB>> {
  const handle = await openDatabase<DB>(target, schema);
  try {
    await migrateToLatest(handle.db, schema, migrations);
  } catch (err) {
    await handle.close();
    throw err;
  }
  return handle;
}
