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

function matches(
  eb: ExpressionBuilder<Database, 'asset'>,
  f: AssetFilter,
  tagsFromCoveringIndex = false,
): Expression<SqlBool> {
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
    // `tags || '{}'` is the same array, but no GIN index matches it: see `assetCountQuery`.
    const tags = tagsFromCoveringIndex
      ? sql`(${sql.ref('tags')} || '{}'::text[])`
      : sql.ref('tags');
    and.push(sql<SqlBool>`${tags} @> ${sql.val(f.tags)}::text[]`);
  }
  if (f.mimeType !== undefined) and.push(eb('mime_type', '=', f.mimeType));
  if (f.user !== undefined) and.push(eb('user', '=', f.user));
  if (f.application !== undefined) and.push(eb('application', '=', f.application));
  return eb.and(and);
}

/**
 * The page query, unexecuted, so benchmarks can EXPLAIN exactly what runs. Keys first: the
 * inner query finds the page's timestamps, which the planner can take from one covering
 * index in order without touching the table (skipped `offset` rows included); only the
 * page's own rows are then read, by the unique timestamp.
 */
export function assetPageQuery(db: Kysely<Database>, filter: AssetFilter, window: PageWindow) {
  let keys = db
    .selectFrom('asset')
    .select('timestamp')
    .where((eb) => matches(eb, filter));
  if (window.offsetTime !== undefined) {
    keys = keys.where('timestamp', window.order === 'desc' ? '<' : '>', window.offsetTime);
  }
  keys = keys.orderBy('timestamp', window.order).limit(window.limit).offset(window.offset);
  return db
    .selectFrom('asset')
    .selectAll()
    .where('timestamp', 'in', keys)
    .orderBy('timestamp', window.order);
}

/** One page of matching rows in timestamp order. */
export async function findAssetPage(
  db: Kysely<Database>,
  filter: AssetFilter,
  window: PageWindow,
): Promise<AssetRow[]> {
  return assetPageQuery(db, filter, window).execute();
}

/**
 * The count query, unexecuted (see `assetPageQuery`). With tags and an application, user
 * or MIME type filter together, the planner likes to AND the GIN bitmap with another
 * index and then visit every match in the table; the per-filter indexes carry the tags,
 * so hiding the tags condition from GIN lets the count run from one index alone (about
 * 4× faster at 1,000,000 rows).
 */
export function assetCountQuery(db: Kysely<Database>, filter: AssetFilter) {
  const covered =
    (filter.tags?.length ?? 0) > 0 &&
    (filter.application !== undefined ||
      filter.user !== undefined ||
      filter.mimeType !== undefined) &&
    !filter.includeTrashed &&
    !filter.includeCorrupted;
  return db
    .selectFrom('asset')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => matches(eb, filter, covered));
}

/**
 * The kept count (`asset_count`, maintained by triggers) that answers this filter exactly,
 * when there is one: no filter but the switches, or exactly one of application, user,
 * MIME type or a single tag.
 */
export function keptCountKey(f: AssetFilter): { dimension: string; value: string } | undefined {
  if (f.hashPrefix !== undefined || f.startTime !== undefined || f.endTime !== undefined) {
    return undefined;
  }
  const keys: { dimension: string; value: string }[] = [];
  if (f.application !== undefined) keys.push({ dimension: 'application', value: f.application });
  if (f.user !== undefined) keys.push({ dimension: 'user', value: f.user });
  if (f.mimeType !== undefined) keys.push({ dimension: 'mime_type', value: f.mimeType });
  const tags = f.tags ?? [];
  if (tags.length > 1) return undefined;
  if (tags.length === 1) keys.push({ dimension: 'tag', value: tags[0]! });
  if (keys.length > 1) return undefined;
  return keys[0] ?? { dimension: 'all', value: '' };
}

/** How many rows match, regardless of any page window. */
export async function countAssets(db: Kysely<Database>, filter: AssetFilter): Promise<number> {
  const key = keptCountKey(filter);
  if (key) {
    const { rows } = await sql<{ n: number | string }>`
      select coalesce(sum(n), 0) as n from asset_count
      where dimension = ${key.dimension} and value = ${key.value}
      ${filter.includeTrashed ? sql`` : sql`and not is_trashed`}
      ${filter.includeCorrupted ? sql`` : sql`and not is_corrupted`}`.execute(db);
    return Number(rows[0]?.n ?? 0);
  }
  const row = await assetCountQuery(db, filter).executeTakeFirstOrThrow();
  return Number(row.n);
}
