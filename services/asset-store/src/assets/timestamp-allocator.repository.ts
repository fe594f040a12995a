import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';

/**
 * One fixed text, sent as a named prepared statement (`preparedAs`'s mark): every ingest
 * runs it, so neither Kysely's query building nor the server's parse and plan is paid per
 * call (bench/NOTES.md, several instances).
 *
 * Committed without waiting for the WAL flush (`synchronous_commit` off for this one
 * transaction, set in the WHERE so it stays one statement and one round trip): an asset row
 * holding one of these timestamps commits synchronously later, which flushes this record
 * too, so a server crash can only forget timestamps no acknowledged asset carries.
 */
const ALLOCATE = `/* prepared:allocate_timestamps */ update timestamp_allocator
  set last_issued = greatest(
    $1::bigint,
    last_issued + 1,
    (select coalesce(max(timestamp), 0) + 1 from asset)
  ) + $2::bigint - 1
  where set_config('synchronous_commit', 'off', true) is not null
  returning last_issued`;

/**
 * Takes `count` consecutive timestamps under the row's lock and answers the last one: the
 * first is the clock reading, or one past the last issued (or past the newest indexed
 * asset: a rebuild may have brought in newer ones), whichever is higher.
 */
export async function allocateTimestamps(
  db: Kysely<Database>,
  clockMs: number,
  count: number,
): Promise<number> {
  const { rows } = await db.executeQuery<{ last_issued: number }>(
    CompiledQuery.raw(ALLOCATE, [clockMs, count]),
  );
  const row = rows[0];
  if (!row) throw new Error('timestamp_allocator has no row: was the migration run?');
  return Number(row.last_issued);
}
