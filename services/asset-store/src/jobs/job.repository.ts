import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { JobRow, JobRowUpdate, NewJobRow } from './job.table.js';

/** Records a job that has just started. */
export async function insertJob(db: Kysely<Database>, row: NewJobRow): Promise<void> {
  await db.insertInto('job').values(row).execute();
}

/** Saves a running job's progress; one that has ended keeps its final counts. */
export async function saveJobProgress(
  db: Kysely<Database>,
  id: string,
  changes: Pick<JobRowUpdate, 'total' | 'done' | 'bytes_total' | 'bytes_done'>,
): Promise<void> {
  await db
    .updateTable('job')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', 'running')
    .execute();
}

/**
 * Saves a job's outcome, unless it is no longer running: a job a restart of the service
 * marked failed stays failed.
 */
export async function finishJob(
  db: Kysely<Database>,
  id: string,
  changes: JobRowUpdate,
): Promise<void> {
  await db
    .updateTable('job')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', 'running')
    .execute();
}

/** One job by id. */
export async function findJob(db: Kysely<Database>, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('job').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The newest jobs first. */
export async function listRecentJobs(db: Kysely<Database>, limit: number): Promise<JobRow[]> {
  return db.selectFrom('job').selectAll().orderBy('started_at', 'desc').limit(limit).execute();
}

/** The instances that have jobs marked running (null: a row from before owners were kept). */
export async function listRunningJobOwners(db: Kysely<Database>): Promise<(string | null)[]> {
  const rows = await db
    .selectFrom('job')
    .select('instance_id')
    .distinct()
    .where('status', '=', 'running')
    .execute();
  return rows.map((row) => row.instance_id);
}

/**
 * Every job still marked running by one of `owners` (null for rows without one) becomes
 * failed with `reason`; answers how many.
 */
export async function failRunningJobsOf(
  db: Kysely<Database>,
  owners: (string | null)[],
  reason: string,
  at: Date,
): Promise<number> {
  const ids = owners.filter((id): id is string => id !== null);
  const withoutOwner = ids.length < owners.length;
  if (ids.length === 0 && !withoutOwner) return 0;
  const result = await db
    .updateTable('job')
    .set({ status: 'failed', error: reason, finished_at: at })
    .where('status', '=', 'running')
    .where((eb) => {
      const mine = [];
      if (ids.length > 0) mine.push(eb('instance_id', 'in', ids));
      if (withoutOwner) mine.push(eb('instance_id', 'is', null));
      return eb.or(mine);
    })
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** How many rows the index holds and their bytes (the kept counts): a verify job's totals. */
export async function countIndexedAssets(
  db: Kysely<Database>,
): Promise<{ files: number; bytes: number }> {
  const { rows } = await sql<{ files: number; bytes: number }>`
    select coalesce(sum(n), 0) as files, coalesce(sum(bytes), 0) as bytes
    from asset_count where dimension = 'all'`.execute(db);
  return { files: Number(rows[0]?.files ?? 0), bytes: Number(rows[0]?.bytes ?? 0) };
}
