import { sql, type Kysely } from 'kysely';

/**
 * A change to an asset's attributes about to be written to its file, recorded (and
 * committed) first, and deleted in the transaction that commits the change: one left
 * behind marks attributes a crash may have left ahead of the row, rewritten at start.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table attribute_intent (
    id bigint generated always as identity primary key,
    hash text not null
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table attribute_intent`.execute(db);
}
