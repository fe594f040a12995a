import { sql, type Kysely, type Migration } from 'kysely';
import { testDatabaseMode, type TestDatabase } from '@svc/testing';
import { migrateToLatest, openMigrated } from './migrate.js';
import { databaseTarget, openDatabase, type DatabaseHandle } from './open-database.js';
import { migrations, openTestHandle, SCHEMA, type Db } from './test-fixture.js';

let testDb: TestDatabase;
let handle: DatabaseHandle<Db>;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ testDb, handle, close } = await openTestHandle('config_database'));
});
afterAll(async () => {
  await close();
});

describe('databaseTarget', () => {
  it('uses a server for a postgres:// or postgresql:// URL', () => {
    expect(databaseTarget('postgres://u@h/db', '/fallback')).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h/db',
    });
    expect(databaseTarget('postgresql://u@h/db', '/fallback').kind).toBe('postgres');
  });

  it('uses an embedded folder otherwise, the fallback when unset', () => {
    expect(databaseTarget('/srv/db', '/fallback')).toEqual({ kind: 'pglite', dataDir: '/srv/db' });
    expect(databaseTarget(undefined, '/fallback')).toEqual({
      kind: 'pglite',
      dataDir: '/fallback',
    });
  });
});

describe('openDatabase and migrateToLatest', () => {
  it("creates the tables and the migration bookkeeping inside the service's schema", async () => {
    const { rows } = await sql<{ table_schema: string; table_name: string }>`
      select table_schema, table_name from information_schema.tables
      where table_schema = ${SCHEMA} order by table_name
    `.execute(handle.db);
    expect(rows).toEqual([
      { table_schema: SCHEMA, table_name: 'item' },
      { table_schema: SCHEMA, table_name: 'kysely_migration' },
      { table_schema: SCHEMA, table_name: 'kysely_migration_lock' },
    ]);
  });

  it('applies each migration once', async () => {
    await migrateToLatest(handle.db, SCHEMA, migrations);
    const { rows } = await sql<{ name: string }>`
      select name from ${sql.table(`${SCHEMA}.kysely_migration`)}
    `.execute(handle.db);
    expect(rows).toEqual([{ name: '20260101000000_create_item' }]);
  });

  it('reads bigint columns as JS numbers', async () => {
    await handle.db.insertInto('item').values({ id: 1, big: 1_795_000_000_000 }).execute();
    const row = await handle.db
      .selectFrom('item')
      .select(['id', 'big'])
      .where('id', '=', 1)
      .executeTakeFirst();
    expect(row).toEqual({ id: 1, big: 1_795_000_000_000 });
  });

  it('runs a transaction as one unit', async () => {
    await expect(
      handle.db.transaction().execute(async (trx) => {
        await trx.insertInto('item').values({ id: 2, big: 2 }).execute();
        await trx.insertInto('item').values({ id: 2, big: 3 }).execute();
      }),
    ).rejects.toMatchObject({ code: '23505' });
    const rows = await handle.db.selectFrom('item').select('id').where('id', '=', 2).execute();
    expect(rows).toEqual([]);
  });

  it('answers a ping', async () => {
    expect(await handle.ping()).toBe(true);
  });

  it('names the migration that failed', async () => {
    const broken: Record<string, Migration> = {
      ...migrations,
      '20260102000000_broken': {
        up: async (db: Kysely<unknown>) => {
          await sql`create table item (id int)`.execute(db);
        },
      },
    };
    await expect(migrateToLatest(handle.db, SCHEMA, broken)).rejects.toThrow(
      /^migration 20260102000000_broken failed: .*item.*already exists/,
    );
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(openDatabase(testDb.target, 'x; drop table item')).rejects.toThrow(
      'bad schema name',
    );
  });
});

// PGlite has no pool, no server to drop a connection, and one folder admits one instance:
// Skipped on PGlite, where none of these can happen.
const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;
onServer('several instances', () => {
  it('opens and migrates the same new schema from several instances at once', async () => {
    // PostgreSQL's `create schema if not exists` is not safe against a concurrent twin: the
    // loser fails on pg_namespace's unique index. Instances that start together must not.
    const schema = 'config_race';
    const opened = await Promise.allSettled(
      Array.from({ length: 6 }, () => openMigrated<Db>(testDb.target, schema, migrations)),
    );
    await Promise.all(
      opened.map((o) => (o.status === 'fulfilled' ? o.value.close() : Promise.resolve())),
    );
    expect(opened.map((o) => (o.status === 'fulfilled' ? 'opened' : String(o.reason)))).toEqual(
      Array(6).fill('opened'),
    );
    const { rows } = await sql<{ name: string }>`
      select name from ${sql.table(`${schema}.kysely_migration`)}
    `.execute(handle.db);
    expect(rows).toEqual([{ name: '20260101000000_create_item' }]);
  });
});

onServer('the pool', () => {
  it('survives the server dropping a connection while it is checked out', async () => {
    const failed = handle.db.connection().execute(async (conn) => {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(conn);
      await sql`select pg_terminate_backend(${rows[0]!.pid})`.execute(handle.db);
      // The dropped connection's error event arrives while it is still checked out.
      await new Promise((r) => setTimeout(r, 100));
      await sql`select 1`.execute(conn);
    });
    await expect(failed).rejects.toThrow(/terminat|Connection|ECONNRESET/i);
    const { rows } = await sql<{ n: number }>`select 1 as n`.execute(handle.db);
    expect(rows).toEqual([{ n: 1 }]);
  });
});
