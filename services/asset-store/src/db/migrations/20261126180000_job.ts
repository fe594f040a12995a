import { sql, type Kysely } from 'kysely';

/**
 * Admin jobs (verify, rebuild) and their last saved progress. A job never outlives its
 * process: at start, rows still `running` are marked `failed` (`JobService.failInterrupted`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('job')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('verify', 'rebuild')`))
    .addColumn('mode', 'text')
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('running', 'done', 'failed', 'cancelled')`),
    )
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finished_at', 'timestamptz')
    .addColumn('total', 'bigint')
    .addColumn('done', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('bytes_total', 'bigint')
    .addColumn('bytes_done', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('result', 'jsonb')
    .addColumn('error', 'text')
    .execute();
  await sql`create index job_started_at on job (started_at desc)`.execute(db);
  await sql`create index job_running on job (status) where status = 'running'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table job`.execute(db);
}
