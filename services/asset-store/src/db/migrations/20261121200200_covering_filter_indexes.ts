import { sql, type Kysely } from 'kysely';

const FILTERS = ['application', 'user', 'mime_type'] as const;

/**
 * The per-filter indexes over visible rows also carry the other filter columns and the
 * tags, so a search combining filters is counted from the index alone (no heap visit per
 * match) and a page can check every filter while it
 * walks one index in timestamp order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of FILTERS) {
    const others = ['application', 'user', 'mime_type', 'tags'].filter((c) => c !== column);
    await sql`drop index ${sql.id(`asset_visible_${column}_ts`)}`.execute(db);
    await sql`create index ${sql.id(`asset_visible_${column}_ts`)}
      on asset (${sql.id(column)}, timestamp)
      include (${sql.join(others.map((c) => sql.id(c)))})
      where not is_trashed and not is_corrupted`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of FILTERS) {
    await sql`drop index ${sql.id(`asset_visible_${column}_ts`)}`.execute(db);
    await sql`create index ${sql.id(`asset_visible_${column}_ts`)}
      on asset (${sql.id(column)}, timestamp) where not is_trashed and not is_corrupted`.execute(
      db,
    );
  }
}
