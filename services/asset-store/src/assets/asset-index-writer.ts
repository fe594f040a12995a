import { CompiledQuery, type Kysely } from 'kysely';
import type { PipelinedSession } from '@svc/database';
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

/** A batch whose `BEGIN` and insert are on their way; `inserted` settles with both. */
interface InFlight {
  batch: Waiting[];
  inserted: Promise<unknown>;
}

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
 * disk's instead of after it (4 KiB ingests 8-13% faster, measured). The next batch's
 * `BEGIN` and insert go out right behind that `COMMIT`, without waiting for its answer,
 * so each batch costs one round trip on the writer's side instead of three (measured:
 * about 5% more 4 KiB ingests). Without a session (the embedded database, whose one
 * connection an open transaction would hold from every other query meanwhile), a row
 * joins a batch only once its file is durable, and the batch is one statement.
 *
 * A failed batch is retried row by row, each row after its own file, so a row the index
 * refuses, or a file that could not be made durable, fails only its own ingest.
 */
export class AssetIndexWriter {
  #waiting: Waiting[] = [];
  #draining = false;

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
        this.#waiting.push({ row, durable, resolve, reject });
        if (!this.#draining) void this.#drain();
      });
    return this.session ? queued() : durable.then(queued);
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    // Looked at again after each pass: rows may arrive while a pass's last answer, or its
    // return, is awaited. The last look and the reset below run in one turn.
    while (this.#waiting.length > 0) {
      if (this.session) await this.#drainPipelined(this.session);
      else await this.#drainAutocommit();
    }
    this.#draining = false;
  }

  async #drainPipelined(session: IndexSession): Promise<void> {
    const start = (): InFlight | undefined => {
      if (this.#waiting.length === 0) return undefined;
      const batch = this.#waiting.splice(0, MAX_BATCH);
      const begun = session.query(BEGIN);
      const inserted = session.query(insertAssetsQuery(batch.map((w) => w.row)));
      const done = Promise.all([begun, inserted]);
      // Awaited only after the commit before it; until then a failure must not go unhandled.
      done.catch(() => undefined);
      return { batch, inserted: done };
    };
    let current = start();
    while (current) {
      const { batch, inserted } = current;
      try {
        await inserted;
        await Promise.all(batch.map((w) => w.durable));
      } catch (err) {
        await session.query(ROLLBACK).catch(() => undefined);
        await this.#retryAlone(batch, err);
        current = start();
        continue;
      }
      const committed = session.query(COMMIT);
      current = start();
      try {
        await committed;
        for (const w of batch) w.resolve();
      } catch (err) {
        await this.#retryAlone(batch, err);
      }
    }
  }

  async #drainAutocommit(): Promise<void> {
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, MAX_BATCH);
      try {
        await insertAssets(
          this.db,
          batch.map((w) => w.row),
        );
        for (const w of batch) w.resolve();
      } catch (err) {
        await this.#retryAlone(batch, err);
      }
    }
  }

  async #retryAlone(batch: Waiting[], err: unknown): Promise<void> {
    // A batch of one failed for its own reason (its row or its file): no retry.
    if (batch.length === 1) {
      batch[0]!.reject(err);
      return;
    }
    await Promise.all(
      batch.map((w) => w.durable.then(() => insertAsset(this.db, w.row)).then(w.resolve, w.reject)),
    );
  }
}
