import { sql, type Kysely, type SqlBool } from 'kysely';
import type { AssetRow } from '../assets/asset.table.js';
import type { Database } from '../db/database.js';

/** Most subfolders one answer names. */
export const MAX_FOLDERS = 1000;
/** Most assets of one duplicate group returned. */
export const MAX_GROUP_ITEMS = 50;

/** `LIKE`'s wildcards and escape character, escaped, so `text` matches only itself. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A subfolder of the folder asked, with how many visible assets sit in it or below. */
export interface FolderRow {
  name: string;
  count: number;
}

/**
 * The direct subfolders of `prefix` ('' is the top level) among visible assets' `human_path`
 * (slashes at either end ignored, as `path=` of search does), by name.
 */
export async function childFolders(db: Kysely<Database>, prefix: string): Promise<FolderRow[]> {
  const trimmed = sql<string>`btrim(${sql.ref('human_path')}, '/')`;
  // The offset is written into the SQL, not bound: GROUP BY, HAVING and ORDER BY repeat this
  // expression, and with a parameter each copy gets its own ($2, $5...), which PostgreSQL
  // does not take for the same expression (the select list "must appear in the GROUP BY").
  const below =
    prefix === '' ? trimmed : sql<string>`substr(${trimmed}, ${sql.lit(prefix.length + 2)})`;
  const name = sql<string>`split_part(${below}, '/', 1)`;
  const rows = await db
    .selectFrom('asset')
    .select([name.as('name'), sql<string>`count(*)`.as('count')])
    .where('is_trashed', '=', false)
    .where('is_corrupted', '=', false)
    .where((eb) =>
      prefix === ''
        ? eb(trimmed, '<>', '')
        : eb(sql<SqlBool>`${trimmed} like ${`${likeLiteral(prefix)}/%`}`, '=', true),
    )
    .groupBy(name)
    .having(name, '<>', '')
    .orderBy(name)
    .limit(MAX_FOLDERS)
    .execute();
  return rows.map((r) => ({ name: r.name, count: Number(r.count) }));
}

/** One content held by more than one visible asset. */
export interface DuplicateGroupRow {
  content_sha256: string;
  count: number;
}

/**
 * Contents (plain SHA-256) that more than one visible asset holds: the most copies first,
 * then by digest, for stable pages. Served by the `(content_sha256, timestamp)` index.
 */
export async function duplicateGroups(
  db: Kysely<Database>,
  limit: number,
  offset: number,
): Promise<{ groups: DuplicateGroupRow[]; total: number }> {
  const base = db
    .selectFrom('asset')
    .select(['content_sha256', sql<string>`count(*)`.as('count')])
    .where('content_sha256', 'is not', null)
    .where('is_trashed', '=', false)
    .where('is_corrupted', '=', false)
    .groupBy('content_sha256')
    .having(sql`count(*)`, '>', 1);
  const [rows, total] = await Promise.all([
    base
      .orderBy(sql`count(*)`, 'desc')
      .orderBy('content_sha256')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom(base.as('groups'))
      .select(sql<string>`count(*)`.as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    groups: rows.map((r) => ({ content_sha256: r.content_sha256!, count: Number(r.count) })),
    total: Number(total.n),
  };
}

/** The visible assets holding these contents, newest first within each. */
export function assetsByContent(
  db: Kysely<Database>,
  digests: readonly string[],
): Promise<AssetRow[]> {
  if (digests.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('asset')
    .selectAll()
    .where('content_sha256', 'in', digests)
    .where('is_trashed', '=', false)
    .where('is_corrupted', '=', false)
    .orderBy('content_sha256')
    .orderBy('timestamp', 'desc')
    .execute();
}
