import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Migration,
  type PostgresCursor,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  type QueryResult,
  type RawBuilder,
} from 'kysely';
import pg from 'pg';
import { createDurablePGlite } from './durable-pglite.js';
import { lockFolder } from './folder-lock.js';

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

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** Per-pool parsers (never the global pg.types): int8/numeric as numbers, the rest as pg does. */
const numericTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return Number;
    const parse: unknown = pg.types.getTypeParser(oid, format ?? 'text');
    return parse;
  }) as pg.CustomTypesConfig['getTypeParser'],
};

const STATEMENT_NAME = /^[a-z_][a-z0-9_]*$/;
const PREPARED_MARK = /^\/\* prepared:([a-z_][a-z0-9_]*) \*\//;

/**
 * Marks the query it starts as a named prepared statement: on a server each connection
 * parses and plans it once, then only binds and executes it (PGlite reads a comment). For
 * hot queries whose text never varies: planning a lateral join costs Postgres more than
 * running it. Each name must belong to one query text, or the server's client refuses it.
 */
export function preparedAs(name: string): RawBuilder<unknown> {
  if (!STATEMENT_NAME.test(name)) {
    throw new Error(`bad prepared statement name ${name}`);
  }
  return sql.raw(`/* prepared:${name} */ `);
}

/** A pooled client as Kysely uses it, sending queries marked by `preparedAs` under their name. */
class PreparingClient implements PostgresPoolClient {
  constructor(private readonly client: pg.PoolClient) {}

  query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    query: string | PostgresCursor<R>,
    parameters: readonly unknown[] = [],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // Kysely only hands over a cursor when the dialect is given a cursor class; none is.
    if (typeof query !== 'string') throw new Error('streaming queries are not configured');
    // Kysely hands over a fresh copy of the parameters for each query; pg only reads them.
    const values = parameters as unknown[];
    const name = PREPARED_MARK.exec(query)?.[1];
    const result = name
      ? this.client.query({ name, text: query, values })
      : this.client.query(query, values);
    return result as Promise<PostgresQueryResult<R>>;
  }

  release(): void {
    this.client.release();
  }
}

/**
 * The pool as Kysely uses it: one `PreparingClient` per pg client, as Kysely keeps one
 * connection object per client.
 */
function preparingPool(pool: pg.Pool): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PreparingClient>();
  return {
    connect: async () => {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) wrappers.set(client, (wrapper = new PreparingClient(client)));
      return wrapper;
    },
    end: () => pool.end(),
  };
}

/** `postgres://…` / `postgresql://…` means a server; anything else is a PGlite folder. */
export function databaseTarget(value: string | undefined, fallbackDir: string): DatabaseTarget {
  if (value && /^postgres(ql)?:\/\//i.test(value)) return { kind: 'postgres', url: value };
  return { kind: 'pglite', dataDir: value ?? fallbackDir };
}

/**
 * One PGlite instance is one session, so the driver hands out a single connection at a
 * time: a transaction's statements can never interleave with another request's.
 */
class PGliteDriver implements Driver {
  #queue: Promise<void> = Promise.resolve();

  constructor(private readonly client: PGlite) {}

  async init(): Promise<void> {
    await this.client.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    let release!: () => void;
    const previous = this.#queue;
    this.#queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    return new PGliteConnection(this.client, release);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PGliteConnection).release();
    return Promise.resolve();
  }

  async destroy(): Promise<void> {
    if (!this.client.closed) await this.client.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  constructor(
    private readonly client: PGlite,
    readonly release: () => void,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.client.query<R>(compiled.sql, compiled.parameters as unknown[]);
    return {
      rows: result.rows,
      numAffectedRows: result.affectedRows === undefined ? undefined : BigInt(result.affectedRows),
    };
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on the embedded database');
  }
}

function pgliteDialect(client: PGlite): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PGliteDriver(client),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

/**
 * Opens the service's database and confines it to `schema` (created when absent) through
 * the search path, so unqualified names in queries and migrations land in the service's
 * own schema. int8 and numeric come back as JS numbers: they hold epoch ms, counts and
 * sequence numbers, all far below 2^53.
 */
export async function openDatabase<DB>(
  target: DatabaseTarget,
  schema: string,
): Promise<DatabaseHandle<DB>> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  if (target.kind === 'postgres') {
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
      await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
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

  const options = {
    parsers: { [INT8_OID]: Number, [NUMERIC_OID]: Number },
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
 * One server connection in pg's pipeline mode (node-postgres `pipeline: true`): each query
 * goes out at once, without waiting for the answers to the ones before, and Postgres runs
 * them in order and answers in order. Each query is its own protocol round (its own Sync),
 * so an error fails that query alone; inside an explicit transaction the queries after it
 * then fail until a rollback. Opened at the first query; a connection that breaks is
 * replaced by a fresh one at the next. Shows in `pg_stat_activity` as `<schema> pipelined`.
 */
export class PipelinedSession {
  #client: pg.Client | undefined;
  #connecting: Promise<pg.Client> | undefined;
  #closed = false;

  constructor(
    private readonly url: string,
    private readonly schema: string,
  ) {}

  query(query: CompiledQuery): Promise<pg.QueryResult> {
    const values = query.parameters as unknown[];
    const run = (client: pg.Client) =>
      client.query(query.sql, values).catch((err: unknown) => {
        // A socket error, or the server ending the session (SQLSTATE class 08, or 57P:
        // shutdown, termination), means the connection is gone or going: the next query
        // must not be written to it before its socket reports the close.
        if (!(err instanceof pg.DatabaseError) || /^(08|57P)/.test(err.code ?? '')) {
          this.#drop(client);
        }
        throw err;
      });
    if (this.#client) return run(this.#client);
    if (this.#closed) return Promise.reject(new Error('pipelined session closed'));
    this.#connecting ??= this.#connect();
    return this.#connecting.then(run);
  }

  #drop(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.end().catch(() => undefined);
  }

  async #connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      options: `-c search_path=${this.schema}`,
      application_name: `${this.schema} pipelined`,
      types: numericTypes,
      pipeline: true,
    });
    // A broken connection must not crash the process; its queries report the error.
    const forget = () => {
      if (this.#client === client) this.#client = undefined;
    };
    client.on('error', forget);
    client.on('end', forget);
    try {
      await client.connect();
    } finally {
      this.#connecting = undefined;
    }
    this.#client = client;
    return client;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined));
    this.#client = undefined;
    await client?.end();
  }
}
