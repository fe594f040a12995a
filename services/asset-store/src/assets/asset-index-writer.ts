import { GroupCommit, type PipelinedSession } from '@svc/database';
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { insertAsset, insertAssets, insertAssetsQuery } from './asset.repository.js';
import type { NewAssetRow } from './asset.table.js';

interface Waiting {
  row: NewAssetRow;
  /** Settles once the row's file is durable; the row must not commit before. */
  durable: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const BEGIN = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

/** What the writer needs of a pipelined session. */
export type IndexSession = Pick<PipelinedSession, 'query'>;

/** Rows per statement at most: bounds the statement's size and its parameters. */
const MAX_BATCH = 500;

/**
 * Group commit for ingest rows: while one batch is written, the rows that arrive meanwhile
 * wait and then go in together as one multi-row insert: one round trip, one commit (one
 * WAL flush) and one run of the count triggers for the lot. A row never commits before its
 * file is durable, and is acknowledged only once committed.
 *
 * With a pipelined `session` (an index on a server), a batch's rows are inserted while
 * their files are still being fsynced, in a transaction that commits once every file of
 * the batch is durable: the insert's round trip and the triggers' work run beside the
 * disk's instead of after it. The next batch's `BEGIN` and insert go out right behind
 * that `COMMIT`, without waiting for its answer, so each batch costs one round trip on
 * the writer's side instead of three (gains: bench/NOTES.md, "The small-ingest fast
 * paths"). Without a session (the embedded database, whose one connection an open
 * transaction would hold from every other query meanwhile), a row joins a batch only once
 * its file is durable, and the batch is one statement.
 *
 * A failed batch is retried row by row, each row after its own file, so a row the index
 * refuses, or a file that could not be made durable, fails only its own ingest.
 */
export class AssetIndexWriter {
  readonly #commit = new GroupCommit<Waiting>({
    maxInFlight: 1,
    take: (queue) => queue.splice(0, MAX_BATCH),
    write: (batch) =>
      this.session ? this.#writePipelined(this.session, batch) : this.#writeAutocommit(batch),
    fail: (batch, err) => batch.forEach((w) => w.reject(err)),
  });
  /**
   * Settles once the last batch sent to the session has its `COMMIT` answered and its rows
   * answered (or retried); the next batch's `COMMIT` waits for it. Never rejects.
   */
  #committing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly session?: IndexSession,
  ) {}

  /** Resolves once the row is committed, which is never before `durable` resolved. */
  insert(row: NewAssetRow, durable: Promise<void>): Promise<void> {
    // The batch reads `durable` later; its failure is reported through the row's promise.
    durable.catch(() => undefined);
    const queued = () =>
      new Promise<void>((resolve, reject) => {
        this.#commit.add({ row, durable, resolve, reject });
      });
    return this.session ? queued() : durable.then(queued);
  }

  /**
   * Sends the batch's `BEGIN` and insert at once, then its `COMMIT` once every file is
   * durable and the batch before is answered. Settles as soon as the `COMMIT` is sent, so
   * the next batch goes out right behind it; the answer is handled in `#committing`.
   */
  async #writePipelined(session: IndexSession, batch: Waiting[]): Promise<void> {
    const sent = Promise.all([
      session.query(BEGIN),
      session.query(insertAssetsQuery(batch.map((w) => w.row))),
    ]);
    // Awaited only after the batch before is answered; until then a failure must not go unhandled.
    sent.catch(() => undefined);
    try {
      await this.#committing;
      await sent;
      await Promise.all(batch.map((w) => w.durable));
    } catch {
      await session.query(ROLLBACK).catch(() => undefined);
      await this.#retryAlone(batch);
      return;
    }
    this.#committing = session.query(COMMIT).then(
      () => batch.forEach((w) => w.resolve()),
      () => this.#retryAlone(batch),
    );
  }

  async #writeAutocommit(batch: Waiting[]): Promise<void> {
    try {
      await insertAssets(
        this.db,
        batch.map((w) => w.row),
      );
      for (const w of batch) w.resolve();
    } catch {
      await this.#retryAlone(batch);
    }
  }

  async #retryAlone(batch: Waiting[]): Promise<void> {
    // Even a batch of one goes again through the pool: a lost session is no fault of its
    // row, and a row that fails again fails only its own ingest.
    await Promise.all(
      batch.map((w) => w.durable.then(() => insertAsset(this.db, w.row)).then(w.resolve, w.reject)),
    );
  }
}
