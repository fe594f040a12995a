import {
  sql,
  type PostgresCursor,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  type RawBuilder,
} from 'kysely';
import type pg from 'pg';

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
export function preparingPool(pool: pg.Pool): PostgresPool {
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
