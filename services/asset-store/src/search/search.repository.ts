import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { AssetRow } from '../assets/asset.table.js';
import type { Database } from '../db/database.js';

/** What the matching assets must satisfy; every field set is ANDed. */
export interface AssetFilter {
  hashPrefix?: string | undefined;
  /** Plain SHA-256 of the content, lowercase hex. */
  contentSha256?: string | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
  tags?: readonly string[] | undefined;
  mimeType?: string | undefined;
  /** A MIME type family with its slash (`image/`): `mime_type=image/*`. */
  mimeFamily?: string | undefined;
  user?: string | undefined;
  /** `q`'s terms: each must occur in the search text (case-insensitive substring). */
  terms?: readonly string[] | undefined;
  /** A folder: `human_path` equal to it or below it. */
  pathPrefix?: string | undefined;
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

/** `LIKE`'s wildcards and escape character, escaped, so `text` matches only itself. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `LIKE` would treat these as wildcards; hex prefixes never contain them, but stay exact anyway. */
function likePrefix(prefix: string): string {
  return `${likeLiteral(prefix)}%`;
}

/** Conditions on the filter columns that `asset` and `asset_tag` both carry. */
function sharedConditions(f: AssetFilter): Expression<SqlBool>[] {
  const and: Expression<SqlBool>[] = [];
  const ts = sql.ref('timestamp');
  if (f.startTime !== undefined) and.push(sql<SqlBool>`${ts} >= ${f.startTime}`);
  if (f.endTime !== undefined) and.push(sql<SqlBool>`${ts} <= ${f.endTime}`);
  for (const [column, value] of [
    ['mime_type', f.mimeType],
    ['user', f.user],
    ['application', f.application],
  ] as const) {
    if (value !== undefined) and.push(sql<SqlBool>`${sql.ref(column)} = ${value}`);
  }
  if (f.mimeFamily !== undefined) {
    and.push(sql<SqlBool>`${sql.ref('mime_type')} like ${likePrefix(f.mimeFamily)}`);
  }
  return and;
}

/**
 * What `q` searches, spelled exactly as the pg_trgm index's expression (migration
 * `20261207080000_media_and_text_search`) so the planner matches it to the index.
 */
const SEARCH_TEXT = sql`asset_search_text(human_filename, human_path, description, tags)`;

/**
 * `q` and `path`, which only `asset` carries. Each term is a substring of the search text,
 * which the database lowercased: the term is lowercased there too, so both fold alike.
 */
function textConditions(f: AssetFilter): Expression<SqlBool>[] {
  const and: Expression<SqlBool>[] = [];
  for (const term of f.terms ?? []) {
    and.push(sql<SqlBool>`${SEARCH_TEXT} like lower(${`%${likeLiteral(term)}%`})`);
  }
  if (f.pathPrefix !== undefined) {
    const path = sql.ref('human_path');
    and.push(
      sql<SqlBool>`(${path} = ${f.pathPrefix} or ${path} like ${likePrefix(`${f.pathPrefix}/`)})`,
    );
  }
  return and;
}

/** True when the filter has a condition `asset_tag` and the kept counts cannot answer. */
function hasTextFilter(f: AssetFilter): boolean {
  return (f.terms?.length ?? 0) > 0 || f.pathPrefix !== undefined;
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
  if (f.contentSha256 !== undefined) and.push(eb('content_sha256', '=', f.contentSha256));
  if (f.tags !== undefined && f.tags.length > 0) {
    // `tags || '{}'` is the same array, but no GIN index matches it: see `assetCountQuery`.
    const tags = tagsFromCoveringIndex
      ? sql`(${sql.ref('tags')} || '{}'::text[])`
      : sql.ref('tags');
    and.push(sql<SqlBool>`${tags} @> ${sql.val(f.tags)}::text[]`);
  }
  and.push(...sharedConditions(f), ...textConditions(f));
  return eb.and(and);
}

/** What `asset_tag` rows of `tag` must satisfy to be matches of the filter. */
function tagIndexMatches(
  eb: ExpressionBuilder<Database, 'asset_tag'>,
  f: AssetFilter,
  tag: string,
): Expression<SqlBool> {
  const and: Expression<SqlBool>[] = [eb('tag', '=', tag), ...sharedConditions(f)];
  if ((f.tags?.length ?? 0) > 1) and.push(sql<SqlBool>`tags @> ${sql.val(f.tags)}::text[]`);
  return eb.and(and);
}

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

/** The `offset_time` condition: strictly before (desc) or after (asc) the cursor. */
function cursor(window: PageWindow): Expression<SqlBool>[] {
  if (window.offsetTime === undefined) return [];
  const op = sql.raw(window.order === 'desc' ? '<' : '>');
  return [sql<SqlBool>`${sql.ref('timestamp')} ${op} ${window.offsetTime}`];
}

/**
 * The page query, unexecuted, so benchmarks can EXPLAIN exactly what runs. Keys first: the
 * inner query finds the page's timestamps, which the planner can take from one covering
 * index in order without touching the table (skipped `offset` rows included); only the
 * page's own rows are then read, by the unique timestamp. With `viaTag` (see
 * `tagIndexKey`) the timestamps come from that tag's `asset_tag` entries.
 */
export function assetPageQuery(
  db: Kysely<Database>,
  filter: AssetFilter,
  window: PageWindow,
  viaTag?: string,
) {
  const { order, limit, offset } = window;
  const keys =
    viaTag === undefined
      ? db
          .selectFrom('asset')
          .select('timestamp')
          .where((eb) => eb.and([matches(eb, filter), ...cursor(window)]))
          .orderBy('timestamp', order)
          .limit(limit)
          .offset(offset)
      : db
          .selectFrom('asset_tag')
          .select('timestamp')
          .where((eb) => eb.and([tagIndexMatches(eb, filter, viaTag), ...cursor(window)]))
          .orderBy('timestamp', order)
          .limit(limit)
          .offset(offset);
  return db
    .selectFrom('asset')
    .selectAll()
    .where('timestamp', 'in', keys)
    .orderBy('timestamp', order);
}

/** One page of matching rows in timestamp order. */
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
 * visit per match). With `viaTag`, that tag's `asset_tag` entries are counted.
 */
export function assetCountQuery(db: Kysely<Database>, filter: AssetFilter, viaTag?: string) {
  if (viaTag !== undefined) {
    return db
      .selectFrom('asset_tag')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => tagIndexMatches(eb, filter, viaTag));
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
