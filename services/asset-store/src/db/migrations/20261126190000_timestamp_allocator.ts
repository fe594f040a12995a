import { sql, type Kysely } from 'kysely';

/**
 * The one row every instance on this database takes its asset timestamps from (several
 * instances: timestamps unique and strictly increasing across all of them). Starts above
 * the newest indexed asset, so the first allocation never reuses a timestamp.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table timestamp_allocator (
    id boolean primary key default true check (id),
    last_issued bigint not null
  )`.execute(db);
  await sql`insert into timestamp_allocator (id, last_issued)
    select true, coalesce(max(timestamp), 0) from asset`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table timestamp_allocator`.execute(db);
}
