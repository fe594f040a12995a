import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { insertAsset, insertAssets } from './asset.repository.js';
import type { NewAssetRow } from './asset.table.js';

interface Waiting {
  row: NewAssetRow;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Rows per statement at most: bounds the statement's size and its parameters. */
const MAX_BATCH = 500;

/**
 * Group commit for ingest rows: while one insert runs, the rows that arrive meanwhile wait
 * and then go in together as one multi-row statement: one round trip, one commit (one WAL
 * flush) and one run of the count triggers for the lot. A row is acknowledged only when
 * its statement committed. A failed batch is retried row by row, so a row the index
 * refuses fails only its own ingest.
 */
export class AssetIndexWriter {
  #waiting: Waiting[] = [];
  #draining = false;

  constructor(private readonly db: Kysely<Database>) {}

  /** Resolves once the row is committed. */
  insert(row: NewAssetRow): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ row, resolve, reject });
      if (!this.#draining) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, MAX_BATCH);
      try {
        await insertAssets(
          this.db,
          batch.map((w) => w.row),
        );
        for (const w of batch) w.resolve();
      } catch (err) {
        if (batch.length === 1) batch[0]!.reject(err);
        else {
          await Promise.all(
            batch.map((w) => insertAsset(this.db, w.row).then(w.resolve, w.reject)),
          );
        }
      }
    }
    this.#draining = false;
  }
}
