import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { AssetRow } from '../assets/asset.table.js';
import type { Database } from '../db/database.js';

/** What the matching assets must satisfy; every field set is ANDed. */
export interface AssetFilter {
  hashPrefix?: string | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
  tags?: readonly string[] | undefined;
  mimeType?: string | undefined;
  user?: string | undefined;
  application?: string | undefined;
  includeTrashed: boolean;
  includeCorrupted: boolean;
}

/** Which slice of the matches, in timestamp order. */
export interface PageWindow {
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
  /** Exclusive cursor: strictly before (desc) or after (asc) this timestamp. */
  offsetTime?: number | undefined;
}

/** `LIKE` would treat these as wildcards; hex prefixes never contain them, but stay exact anyway. */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function matches(eb: ExpressionBuilder<Database, 'asset'>, f: AssetFilter): Expression<SqlBool> {
  const and: Expression<SqlBool>[] = [];
  // Literal NOTs (not bound parameters) so the planner can match the partial indexes.
  if (!f.includeTrashed) and.push(eb.not(eb.ref('is_trashed')));
  if (!f.includeCorrupted) and.push(eb.not(eb.ref('is_corrupted')));
  if (f.hashPrefix !== undefined) {
    // The exact-hash case hits the primary key; prefixes use the text_pattern_ops index.
    and.push(
      f.hashPrefix.length === 64
        ? eb('hash', '=', f.hashPrefix)
        : eb('hash', 'like', likePrefix(f.hashPrefix)),
    );
  }
  if (f.startTime !== undefined) and.push(eb('timestamp', '>=', f.startTime));
  if (f.endTime !== undefined) and.push(eb('timestamp', '<=', f.endTime));
  if (f.tags !== undefined && f.tags.length > 0) {
    and.push(sql<SqlBool>`${sql.ref('tags')} @> ${sql.val(f.tags)}::text[]`);
  }
  if (f.mimeType !== undefined) and.push(eb('mime_type', '=', f.mimeType));
  if (f.user !== undefined) and.push(eb('user', '=', f.user));
  if (f.application !== undefined) and.push(eb('application', '=', f.application));
  return eb.and(and);
}

/** One page of matching rows in timestamp order. */
export async function findAssetPage(
  db: Kysely<Database>,
  filter: AssetFilter,
  window: PageWindow,
): Promise<AssetRow[]> {
  let query = db
    .selectFrom('asset')
    .selectAll()
    .where((eb) => matches(eb, filter));
  if (window.offsetTime !== undefined) {
    query = query.where('timestamp', window.order === 'desc' ? '<' : '>', window.offsetTime);
  }
  return query
    .orderBy('timestamp', window.order)
    .limit(window.limit)
    .offset(window.offset)
    .execute();
}

/** How many rows match, regardless of any page window. */
export async function countAssets(db: Kysely<Database>, filter: AssetFilter): Promise<number> {
  const row = await db
    .selectFrom('asset')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => matches(eb, filter))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
