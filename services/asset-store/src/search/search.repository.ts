import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { AssetRow } from '../assets/asset.table.js';
import type { Database } from '../db/database.js';
import {
  cursor,
  hasTextFilter,
  matches,
  servedByText,
  sortKey,
  tagIndexMatches,
  textIndexMatches,
  type AssetFilter,
  type PageWindow,
} from './asset-filter.js';

/**
 * The tag whose `asset_tag` entries are the fewest way to a filter's matches, if walking
 * them beats the `asset` indexes: the filter has tags and hides trashed and corrupted
 * assets (the only rows `asset_tag` holds), has no hash prefix (its own index is
 * narrower), and its rarest tag is no more common than its application, user or MIME
 * type, judged by the kept counts. Undefined means: query `asset`.
 */
export async function tagIndexKey(
  db: Kysely<Database>,
  f: AssetFilter,
): Promise<string | undefined> {
  const tags = f.tags ?? [];
  if (tags.length === 0 || f.includeTrashed || f.includeCorrupted) return undefined;
  // A hash or a digest is narrower than any tag; `asset_tag` has no text to search.
  if (f.hashPrefix !== undefined || f.contentSha256 !== undefined || hasTextFilter(f)) {
    return undefined;
  }
  const keys: [string, string][] = tags.map((t) => ['tag', t]);
  if (f.application !== undefined) keys.push(['application', f.application]);
  if (f.user !== undefined) keys.push(['user', f.user]);
  if (f.mimeType !== undefined) keys.push(['mime_type', f.mimeType]);
  // One tag and nothing to weigh it against: no need to ask the counts.
  if (keys.length === 1) return tags[0];
  const { rows } = await sql<{ dimension: string; value: string; n: number | string }>`
    select dimension, value, sum(n) as n from asset_count
    where (dimension, value) in (${sql.join(keys.map(([d, v]) => sql`(${d}, ${v})`))})
      and not is_trashed and not is_corrupted
    group by dimension, value`.execute(db);
  const count = new Map(rows.map((r) => [`${r.dimension}\0${r.value}`, Number(r.n)]));
  const n = ([d, v]: [string, string]) => count.get(`${d}\0${v}`) ?? 0;
  const rarest = tags.reduce((a, b) => (n(['tag', b]) < n(['tag', a]) ? b : a));
  const others = keys.filter(([d]) => d !== 'tag').map(n);
  return others.every((o) => n(['tag', rarest]) <= o) ? rarest : undefined;
}

/**
 * The page query, unexecuted, so benchmarks can EXPLAIN exactly what runs. Keys first: the
 * inner query finds the page's timestamps, which the planner can take from one covering
 * index in order without touching the table (skipped `offset` rows included); only the
 * page's own rows are then read, by the unique timestamp. With `viaTag` (see
 * `tagIndexKey`) the timestamps come from that tag's `asset_tag` entries; for a `q` that
 * `asset_text` answers alone (see `servedByText`), from `asset_text`. Sorted by `taken`,
 * they come from `asset`, the only table holding `taken_at`: visible rows walk the
 * `asset_visible_taken` index in order. Ties of the key go by timestamp, so the order is
 * total and `offset` paging exact.
 */
export function assetPageQuery(
  db: Kysely<Database>,
  filter: AssetFilter,
  window: PageWindow,
  viaTag?: string,
) {
  const { order, limit, offset } = window;
  const taken = window.sort === 'taken';
  let fromAsset = db
    .selectFrom('asset')
    .select('timestamp')
    .where((eb) => eb.and([matches(eb, filter), ...cursor(window)]));
  if (taken) fromAsset = fromAsset.orderBy(sortKey('taken'), order);
  const keys =
    !taken && viaTag !== undefined
      ? db
          .selectFrom('asset_tag')
          .select('timestamp')
          .where((eb) => eb.and([tagIndexMatches(eb, filter, viaTag), ...cursor(window)]))
          .orderBy('timestamp', order)
          .limit(limit)
          .offset(offset)
      : !taken && servedByText(filter)
        ? db
            .selectFrom('asset_text')
            .select('timestamp')
            .where((eb) => eb.and([textIndexMatches(eb, filter), ...cursor(window)]))
            .orderBy('timestamp', order)
            .limit(limit)
            .offset(offset)
        : fromAsset.orderBy('timestamp', order).limit(limit).offset(offset);
  let page = db.selectFrom('asset').selectAll().where('timestamp', 'in', keys);
  if (taken) page = page.orderBy(sortKey('taken'), order);
  return page.orderBy('timestamp', order);
}

/** One page of matching rows in the window's order. */
export async function findAssetPage(
  db: Kysely<Database>,
  filter: AssetFilter,
  window: PageWindow,
  viaTag?: string,
): Promise<AssetRow[]> {
  return assetPageQuery(db, filter, window, viaTag).execute();
}

/**
 * The count query, unexecuted (see `assetPageQuery`). With tags and an application, user
 * or MIME type filter together, the planner likes to AND the GIN bitmap with another
 * index and then visit every match in the table; the per-filter indexes carry the tags,
 * so hiding the tags condition from GIN lets the count run from one index alone (no heap
 * visit per match). With `viaTag`, that tag's `asset_tag` entries are counted; for a `q`
 * that `asset_text` answers alone, its rows.
 */
export function assetCountQuery(db: Kysely<Database>, filter: AssetFilter, viaTag?: string) {
  if (viaTag !== undefined) {
    return db
      .selectFrom('asset_tag')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => tagIndexMatches(eb, filter, viaTag));
  }
  if (servedByText(filter)) {
    return db
      .selectFrom('asset_text')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => textIndexMatches(eb, filter));
  }
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
  if (
    f.hashPrefix !== undefined ||
    f.contentSha256 !== undefined ||
    f.startTime !== undefined ||
    f.endTime !== undefined ||
    f.mimeFamily !== undefined ||
    hasTextFilter(f)
  ) {
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
export async function countAssets(
  db: Kysely<Database>,
  filter: AssetFilter,
  viaTag?: string,
): Promise<number> {
  const key = keptCountKey(filter);
  if (key) {
    const { rows } = await sql<{ n: number | string }>`
      select coalesce(sum(n), 0) as n from asset_count
      where dimension = ${key.dimension} and value = ${key.value}
      ${filter.includeTrashed ? sql`` : sql`and not is_trashed`}
      ${filter.includeCorrupted ? sql`` : sql`and not is_corrupted`}`.execute(db);
    return Number(rows[0]?.n ?? 0);
  }
  const row = await assetCountQuery(db, filter, viaTag).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The newest asset holding one content digest. */
export interface ContentHolder {
  content_sha256: string;
  hash: string;
  timestamp: number;
}

/**
 * For each of `digests` that some matching asset holds, the newest such asset: one query
 * (`distinct on` over the `(content_sha256, timestamp)` index), whatever the number.
 */
export async function findNewestByContent(
  db: Kysely<Database>,
  digests: readonly string[],
  switches: Pick<AssetFilter, 'includeTrashed' | 'includeCorrupted'>,
): Promise<ContentHolder[]> {
  const rows = await db
    .selectFrom('asset')
    .distinctOn('content_sha256')
    .select(['content_sha256', 'hash', 'timestamp'])
    .where((eb) => {
      // `is not null` spelled out so the planner sees the partial index applies.
      const and: Expression<SqlBool>[] = [
        eb('content_sha256', 'is not', null),
        eb('content_sha256', 'in', digests),
      ];
      if (!switches.includeTrashed) and.push(eb.not(eb.ref('is_trashed')));
      if (!switches.includeCorrupted) and.push(eb.not(eb.ref('is_corrupted')));
      return eb.and(and);
    })
    .orderBy('content_sha256')
    .orderBy('timestamp', 'desc')
    .execute();
  return rows.map((r) => ({
    content_sha256: r.content_sha256!,
    hash: r.hash,
    timestamp: Number(r.timestamp),
  }));
}
