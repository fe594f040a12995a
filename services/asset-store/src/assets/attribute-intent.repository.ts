import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';

/** Records an attribute write about to happen; answers its id. */
export async function insertAttributeIntent(db: Kysely<Database>, hash: string): Promise<number> {
  const { id } = await db
    .insertInto('attribute_intent')
    .values({ hash })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** Deletes one intent (its change committed or rolled back, the attributes in line). */
export async function deleteAttributeIntent(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('attribute_intent').where('id', '=', id).execute();
}

/** The hashes of every intent left behind, once each. */
export async function listAttributeIntentHashes(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('attribute_intent').select('hash').distinct().execute();
  return rows.map((r) => r.hash);
}

/** Deletes every intent of one asset. */
export async function deleteAttributeIntentsOf(db: Kysely<Database>, hash: string): Promise<void> {
  await db.deleteFrom('attribute_intent').where('hash', '=', hash).execute();
}
