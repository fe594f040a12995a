import { CompiledQuery, type Kysely } from 'kysely';
import type pg from 'pg';
import type { Database } from '../db/database.js';

/**
 * Takes `$2` consecutive timestamps under the row's lock and answers the last one: the
 * first is the clock reading `$1`, or one past the last issued (or past the newest indexed
 * asset: a rebuild may have brought in newer ones), whichever is higher.
 *
 * Committed without waiting for the WAL flush (`synchronous_commit` off for this one
 * transaction, set in the WHERE so it stays one statement and one round trip): an asset row
 * holding one of these timestamps commits synchronously later, which flushes this record
 * too, so a server crash can only forget timestamps no acknowledged asset carries.
 */
const TAKE = `update timestamp_allocator
  set last_issued = greatest(
    $1::bigint,
    last_issued + 1,
    (select coalesce(max(timestamp), 0) + 1 from asset)
  ) + $2::bigint - 1
  where set_config('synchronous_commit', 'off', true) is not null`;

/**
 * The shared allocation: `TAKE` unless a lone instance issues from memory (it holds the
 * solo lock `$3` exclusively), then no row. The lock is taken shared for this transaction
 * only, so no instance can go solo while it runs. One fixed text, sent as a named prepared
 * statement (`preparedAs`'s mark): every ingest runs it (bench/NOTES.md, several instances).
 */
const ALLOCATE = `/* prepared:allocate_timestamps */ ${TAKE}
  and pg_try_advisory_xact_lock_shared($3::bigint)
  returning last_issued`;

/** `count` timestamps from the row; undefined while a solo issuer holds it (`soloKey`). */
export async function allocateTimestamps(
  db: Kysely<Database>,
  soloKey: string,
  clockMs: number,
  count: number,
): Promise<number | undefined> {
  const { rows } = await db.executeQuery<{ last_issued: number }>(
    CompiledQuery.raw(ALLOCATE, [clockMs, count, soloKey]),
  );
  return rows[0] === undefined ? undefined : Number(rows[0].last_issued);
}

/**
 * Asks the solo issuer to stop (a notification on `channel`, which it listens to), waits
 * for its lock for at most `waitMs`, then takes `count` timestamps, all above every one it
 * reserved. Throws the server's lock timeout (55P03) when it does not let go in time.
 */
export async function allocateAfterSolo(
  db: Kysely<Database>,
  solo: { key: string; channel: string },
  clockMs: number,
  count: number,
  waitMs: number,
): Promise<number> {
  await db.executeQuery(CompiledQuery.raw('select pg_notify($1, $2)', [solo.channel, '']));
  return db.transaction().execute(async (trx) => {
    await trx.executeQuery(CompiledQuery.raw(`set local lock_timeout = ${Math.floor(waitMs)}`));
    await trx.executeQuery(
      CompiledQuery.raw('select pg_advisory_xact_lock_shared($1::bigint)', [solo.key]),
    );
    const { rows } = await trx.executeQuery<{ last_issued: number }>(
      CompiledQuery.raw(`${TAKE} returning last_issued`, [clockMs, count]),
    );
    return lastIssued(rows);
  });
}

/**
 * On the solo issuer's own connection: takes the solo lock if no instance holds it or is
 * allocating, and listens for instances that want the row back.
 */
export async function tryHoldSolo(
  client: pg.Client,
  solo: { key: string; channel: string },
): Promise<boolean> {
  await client.query(`listen ${solo.channel}`);
  const { rows } = await client.query<{ got: boolean }>(
    'select pg_try_advisory_lock($1::bigint) as got',
    [solo.key],
  );
  return rows[0]?.got === true;
}

/**
 * On the solo issuer's connection, holding the solo lock: takes `count` timestamps as `TAKE`
 * does, to issue from memory; answers the last.
 */
export async function reserveTimestamps(
  client: pg.Client,
  clockMs: number,
  count: number,
): Promise<number> {
  const { rows } = await client.query<{ last_issued: string }>(`${TAKE} returning last_issued`, [
    clockMs,
    count,
  ]);
  return lastIssued(rows);
}

/** Gives the solo lock back; the row keeps the reserve, so others go on above it. */
export async function releaseSolo(client: pg.Client, key: string): Promise<void> {
  await client.query('select pg_advisory_unlock($1::bigint)', [key]);
}

function lastIssued(rows: { last_issued: number | string }[]): number {
  const row = rows[0];
  if (!row) throw new Error('timestamp_allocator has no row: was the migration run?');
  return Number(row.last_issued);
}

/**
 * Holds the solo lock shared on `client` (a session lock, until the connection closes), so no
 * instance issues from memory meanwhile: asks the solo instance to stop, then waits for it
 * for at most `waitMs`. Throws the server's lock timeout (55P03) when it does not let go.
 */
export async function holdSoloShared(
  client: pg.Client,
  solo: { key: string; channel: string },
  waitMs: number,
): Promise<void> {
  await client.query('select pg_notify($1, $2)', [solo.channel, '']);
  await client.query(`set lock_timeout = ${Math.floor(waitMs)}`);
  await client.query('select pg_advisory_lock_shared($1::bigint)', [solo.key]);
}

/**
 * Ends the server session holding the solo lock exclusively in this database (an instance
 * that did not give it back when asked: stuck, or cut off from the server). The server then
 * frees the lock; the row still holds that instance's reserve, so nothing it issued is
 * issued again. `$1`, `$2`: the key's high and low 32 bits, as `pg_locks` shows them.
 */
const END_SOLO_HOLDER = `select pg_terminate_backend(pid) as ended from pg_locks
  where locktype = 'advisory' and granted and mode = 'ExclusiveLock' and objsubid = 1
    and database = (select oid from pg_database where datname = current_database())
    and classid = $1::bigint::oid and objid = $2::bigint::oid`;

function keyHalves(key: string): [string, string] {
  const k = BigInt.asUintN(64, BigInt(key));
  return [String(k >> 32n), String(k & 0xffffffffn)];
}

/** `END_SOLO_HOLDER` over the pool; answers whether a session was ended. */
export async function endSoloHolder(db: Kysely<Database>, key: string): Promise<boolean> {
  const { rows } = await db.executeQuery<{ ended: boolean }>(
    CompiledQuery.raw(END_SOLO_HOLDER, keyHalves(key)),
  );
  return rows.some((row) => row.ended);
}

/** `END_SOLO_HOLDER` on a connection of its own (a rebuild's fence). */
export async function endSoloHolderOn(client: pg.Client, key: string): Promise<boolean> {
  const { rows } = await client.query<{ ended: boolean }>(END_SOLO_HOLDER, keyHalves(key));
  return rows.some((row) => row.ended);
}

/** The shared row's two allocations over `db`, for the allocator (its `TimestampRow`). */
export function timestampRow(db: Kysely<Database>, solo: { key: string; channel: string }) {
  return {
    allocate: (clockMs: number, count: number) => allocateTimestamps(db, solo.key, clockMs, count),
    allocateAfterSolo: (clockMs: number, count: number, waitMs: number) =>
      allocateAfterSolo(db, solo, clockMs, count, waitMs),
    endSoloHolder: () => endSoloHolder(db, solo.key),
  };
}
