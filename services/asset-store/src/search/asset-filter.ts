import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Database } from '../db/database.js';

/*
 * A search's filter as SQL conditions: what `search.repository.ts` puts in its page and count
 * queries, on `asset` and on the `asset_tag` and `asset_text` indexes alike.
 */

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

/**
 * What a page is sorted by: `timestamp` (unique, the spec's order) or `taken`, the date
 * taken else the ingest time, `coalesce(taken_at, timestamp)`, ties by timestamp.
 */
export type SortKey = 'timestamp' | 'taken';

/** Which slice of the matches, in `sort` order. */
export interface PageWindow {
  order: 'asc' | 'desc';
  /** Absent: `timestamp`. */
  sort?: SortKey | undefined;
  limit: number;
  offset: number;
  /** Exclusive cursor: strictly before (desc) or after (asc) this value of the sort key. */
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

/** Conditions on the filter columns that `asset`, `asset_tag` and `asset_text` all carry. */
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
 * `q`'s terms as conditions on `asset_text.text`. Each term is a substring of the search
 * text, which the database lowercased: the term is lowercased there too, so both fold
 * alike. The pg_trgm index serves terms of 3 characters or more, the pairs index
 * (`text_pairs`) terms of 2; a single character is checked row by row.
 */
function termConditions(f: AssetFilter): Expression<SqlBool>[] {
  const text = sql.ref('asset_text.text');
  return (f.terms ?? []).flatMap((term) => {
    const like = sql<SqlBool>`${text} like lower(${`%${likeLiteral(term)}%`})`;
    if ([...term].length !== 2) return [like];
    // The same expression as the index's, so the planner can use it.
    return [sql<SqlBool>`text_pairs(${text}) @> array[lower(${term})]::text[]`, like];
  });
}

/**
 * `q` and `path`, which only `asset` (and for `q`, `asset_text`) carries. On `asset`,
 * `q` is a semi-join to `asset_text` by timestamp.
 */
function textConditions(f: AssetFilter): Expression<SqlBool>[] {
  const and: Expression<SqlBool>[] = [];
  const terms = termConditions(f);
  if (terms.length > 0) {
    and.push(sql<SqlBool>`${sql.ref('asset.timestamp')} in
      (select asset_text.timestamp from asset_text where ${sql.join(terms, sql` and `)})`);
  }
  if (f.pathPrefix !== undefined) {
    const path = sql.ref('human_path');
    and.push(
      sql<SqlBool>`(${path} = ${f.pathPrefix} or ${path} like ${likePrefix(`${f.pathPrefix}/`)})`,
    );
  }
  return and;
}

/**
 * True when `asset_text` alone answers the filter: it has `q` and otherwise only
 * conditions `asset_text` carries (time, application, user, MIME type, the switches).
 */
export function servedByText(f: AssetFilter): boolean {
  return (
    (f.terms?.length ?? 0) > 0 &&
    f.hashPrefix === undefined &&
    f.contentSha256 === undefined &&
    (f.tags?.length ?? 0) === 0 &&
    f.pathPrefix === undefined
  );
}

/** What `asset_text` rows must satisfy to be matches of the filter (see `servedByText`). */
export function textIndexMatches(
  eb: ExpressionBuilder<Database, 'asset_text'>,
  f: AssetFilter,
): Expression<SqlBool> {
  const and: Expression<SqlBool>[] = [];
  if (!f.includeTrashed) and.push(eb.not(eb.ref('is_trashed')));
  if (!f.includeCorrupted) and.push(eb.not(eb.ref('is_corrupted')));
  and.push(...sharedConditions(f), ...termConditions(f));
  return eb.and(and);
}

/** True when the filter has a condition `asset_tag` and the kept counts cannot answer. */
export function hasTextFilter(f: AssetFilter): boolean {
  return (f.terms?.length ?? 0) > 0 || f.pathPrefix !== undefined;
}

export function matches(
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
export function tagIndexMatches(
  eb: ExpressionBuilder<Database, 'asset_tag'>,
  f: AssetFilter,
  tag: string,
): Expression<SqlBool> {
  const and: Expression<SqlBool>[] = [eb('tag', '=', tag), ...sharedConditions(f)];
  if ((f.tags?.length ?? 0) > 1) and.push(sql<SqlBool>`tags @> ${sql.val(f.tags)}::text[]`);
  return eb.and(and);
}

/**
 * The sort key as SQL: `timestamp`, or for `taken` the expression of the index
 * `asset_visible_taken` (migration `20261207160000_taken_order`), spelled the same so the
 * planner walks that index.
 */
export function sortKey(sort: SortKey | undefined): Expression<number> {
  return sort === 'taken'
    ? sql<number>`coalesce(${sql.ref('taken_at')}, ${sql.ref('timestamp')})`
    : sql<number>`${sql.ref('timestamp')}`;
}

/** The `offset_time` condition: the sort key strictly before (desc) or after (asc) it. */
export function cursor(window: PageWindow): Expression<SqlBool>[] {
  if (window.offsetTime === undefined) return [];
  const op = sql.raw(window.order === 'desc' ? '<' : '>');
  return [sql<SqlBool>`${sortKey(window.sort)} ${op} ${window.offsetTime}`];
}
