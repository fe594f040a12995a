import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createDurablePGlite } from './durable-pglite.js';
import { lockFolder } from './folder-lock.js';
import { numericTypes, pgliteNumericParsers } from './numeric-types.js';
import { pgliteDialect } from './pglite-dialect.js';
import { PipelinedSession } from './pipelined-session.js';
import { preparingPool } from './prepared.js';

/** Where a service keeps its index: a Postgres server URL, or an embedded PGlite folder. */
export type DatabaseTarget =
  | { kind: 'postgres'; url: string }
  /**
   * `dataDir` undefined: in memory (tests). `template`: a `dumpDataDir()` tarball to start
   * from instead of running initdb (tests start each file's database from one).
   */
  | { kind: 'pglite'; dataDir?: string; template?: Blob };

/** An open database: the Kysely instance plus the raw client, for LISTEN/NOTIFY and the like. */
export interface DatabaseHandle<DB> {
  db: Kysely<DB>;
  schema: string;
  target: DatabaseTarget;
  /** Set for `postgres` targets. */
  pool?: pg.Pool;
  /** Set for `postgres` targets: one pipelined connection, opened at its first query. */
  pipelined?: PipelinedSession;
  /** Set for `pglite` targets. */
  pglite?: PGlite;
  /** True when the database answers a trivial query. */
  ping: () => Promise<boolean>;
  close: () => Promise<void>;
}

/** `postgres://…` / `postgresql://…` means a server; anything else is a PGlite folder. */
export function databaseTarget(value: string | undefined, fallbackDir: string): DatabaseTarget {
  if (value && /^postgres(ql)?:\/\//i.test(value)) return { kind: 'postgres', url: value };
  return { kind: 'pglite', dataDir: value ?? fallbackDir };
}

/**
 * Opens the service's database and confines it to `schema` (created when absent) through
 * the search path, so unqualified names in queries and migrations land in the service's
 * own schema. int8 and numeric come back as JS numbers (see `numeric-types.ts`).
 */
export async function openDatabase<DB>(
  target: DatabaseTarget,
  schema: string,
): Promise<DatabaseHandle<DB>> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  return target.kind === 'postgres'
    ? openServer<DB>(target, schema)
    : openEmbedded<DB>(target, schema);
}

async function openServer<DB>(
  target: Extract<DatabaseTarget, { kind: 'postgres' }>,
  schema: string,
): Promise<DatabaseHandle<DB>> {
  const pool = new pg.Pool({
    connectionString: target.url,
    max: 10,
    options: `-c search_path=${schema}`,
    types: numericTypes,
  });
  // A client that loses its server must not crash the process. The pool listens only while
  // a client is idle, so each client also gets its own listener for while it is checked
  // out: its query reports the failure, and the pool drops the broken client on release.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
  try {
    await ensureSchema(db, schema);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const pipelined = new PipelinedSession(target.url, schema);
  return {
    db,
    schema,
    target,
    pool,
    pipelined,
    ping: () => ping(db),
    close: async () => {
      await pipelined.close();
      await db.destroy();
    },
  };
}

/**
 * Creates the schema when absent. Looks first because `create schema` asks for the CREATE
 * privilege on the database even when the schema exists. And `if not exists` alone is not
 * enough: two instances starting together both pass its check, the loser fails on
 * pg_namespace's unique index, so that failure counts as success once the schema is there.
 */
async function ensureSchema<DB>(db: Kysely<DB>, schema: string): Promise<void> {
  const exists = async () =>
    (await sql`select 1 from pg_namespace where nspname = ${schema}`.execute(db)).rows.length > 0;
  if (await exists()) return;
  try {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  } catch (err) {
    if (!(await exists())) throw err;
  }
}

async function openEmbedded<DB>(
  target: Extract<DatabaseTarget, { kind: 'pglite' }>,
  schema: string,
): Promise<DatabaseHandle<DB>> {
  const options = {
    parsers: pgliteNumericParsers,
    // Available to `create extension` (the asset-store's substring search); loading it costs
    // nothing measurable at start.
    extensions: { pg_trgm },
    ...(target.template ? { loadDataDir: target.template } : {}),
  };
  let pglite: PGlite;
  let unlock = (): void => undefined;
  if (target.dataDir) {
    fs.mkdirSync(target.dataDir, { recursive: true });
    unlock = lockFolder(target.dataDir);
    try {
      pglite = await createDurablePGlite(target.dataDir, options);
    } catch (err) {
      unlock();
      throw err;
    }
  } else {
    pglite = await PGlite.create(options);
  }
  try {
    await pglite.exec(`create schema if not exists ${schema}; set search_path to ${schema};`);
  } catch (err) {
    await pglite.close().catch(() => undefined);
    unlock();
    throw err;
  }
  const db = new Kysely<DB>({ dialect: pgliteDialect(pglite) });
  return {
    db,
    schema,
    target,
    pglite,
    ping: () => ping(db),
    close: async () => {
      try {
        await db.destroy();
      } finally {
        unlock();
      }
    },
  };
}

async function ping<DB>(db: Kysely<DB>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
