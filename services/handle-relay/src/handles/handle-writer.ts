import { GroupCommit } from '@svc/database';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { insertHandlesSkippingTaken } from './handle.repository.js';
import type { NewRegistration, TreeTip } from './handle.repository.js';

/** Registrations written per statement. */
const MAX_BATCH = 128;
/** Batch statements under way at once; each is its own transaction and WAL flush. */
const MAX_STATEMENTS_IN_FLIGHT = 2;

interface Pending {
  row: NewRegistration;
  resolve: (stored: boolean) => void;
}

/**
 * Writes concurrent registrations as one statement (a multi-row insert, and their eldest
 * links appended to the transparency log if the log's tree is still as the batch before
 * left it; `insertHandlesSkippingTaken`), so under load a registration costs a fraction of a
 * round trip and of a commit. `tryInsert` answers true only when this very row was stored
 * (a handle appears at most once per batch, so the returned handles say exactly which rows
 * went in); false means "not stored by the batch": the caller then inserts the row alone,
 * where the unique constraints name the conflict (or the row goes in after all). A
 * registration is acknowledged only after the statement that stored it committed.
 */
export class HandleWriter {
  readonly #commit = new GroupCommit<Pending>({
    maxInFlight: MAX_STATEMENTS_IN_FLIGHT,
    take: (queue) => this.#takeBatch(queue),
    write: (batch) => this.#write(batch),
    // Each row then tries alone, where the constraints name its conflict.
    fail: (batch) => batch.forEach((p) => p.resolve(false)),
  });

  /** The log's tree as the last batch planned it: the next one builds on it. */
  readonly #tip: TreeTip = { current: undefined };

  constructor(
    private readonly db: Kysely<Database>,
    /** False only for bench:identity's baseline: no eldest links, no log. */
    private readonly log = true,
  ) {}

  /** Stores `row` with others of the moment; false when the batch did not store it. */
  tryInsert(row: NewRegistration): Promise<boolean> {
    return new Promise<boolean>((resolve) => this.#commit.add({ row, resolve }));
  }

  /**
   * The next rows, each handle and each primary at most once; a repeat is answered false
   * at once (its alone insert meets the constraint, or wins if the batch row loses).
   */
  #takeBatch(queue: Pending[]): Pending[] {
    const taken = queue.splice(0, MAX_BATCH);
    const handles = new Set<string>();
    const primaries = new Set<string>();
    const batch: Pending[] = [];
    for (const p of taken) {
      if (handles.has(p.row.row.handle) || primaries.has(p.row.row.primary_key)) {
        p.resolve(false);
        continue;
      }
      handles.add(p.row.row.handle);
      primaries.add(p.row.row.primary_key);
      batch.push(p);
    }
    return batch;
  }

  /** Answers each row whether it went in; a failed statement answers false to all (`fail`). */
  async #write(batch: Pending[]): Promise<void> {
    const rows = batch.map((p) => p.row);
    const stored = new Set(await insertHandlesSkippingTaken(this.db, rows, this.log, this.#tip));
    for (const p of batch) p.resolve(stored.has(p.row.row.handle));
  }
}
