import type { CompiledQuery } from 'kysely';
import pg from 'pg';
import { numericTypes } from './numeric-types.js';

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
