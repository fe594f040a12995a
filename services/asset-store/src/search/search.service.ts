import type { Kysely } from 'kysely';
import { toAssetRecord, type AssetRecord } from '../assets/asset.model.js';
import type { Database } from '../db/database.js';
import type { AssetFilter, PageWindow } from './asset-filter.js';
import {
  countAssets,
  findAssetPage,
  findNewestByContent,
  tagIndexKey,
} from './search.repository.js';
import type { ContentLookup, ListQuery, SearchQuery } from './search.schemas.js';

/** The `data` of list and search: one page and the exact number of matches. */
export interface AssetPage {
  items: AssetRecord[];
  pagination: { limit: number; offset: number; total: number };
}

/** The `data` of `POST /search/sha256`: per digest asked, the asset holding it, or not. */
export interface ContentLookupResult {
  /** One per distinct digest held, in the order asked: its newest matching asset. */
  items: { sha256: string; hash: string; timestamp: number }[];
  /** The distinct digests no matching asset holds, in the order asked. */
  missing: string[];
}

/** The page window of a list or search query (list sorts by timestamp only). */
export function windowOf(q: ListQuery & { sort?: SearchQuery['sort'] }): PageWindow {
  return {
    order: q.order,
    sort: q.sort,
    limit: q.limit,
    offset: q.offset,
    offsetTime: q.offset_time,
  };
}

/** What a list query matches. */
export function listFilter(q: ListQuery): AssetFilter {
  return {
    application: q.application,
    includeTrashed: q.include_trashed,
    includeCorrupted: q.include_corrupted,
  };
}

/** What a search query matches. */
export function searchFilter(q: SearchQuery): AssetFilter {
  return {
    ...listFilter(q),
    hashPrefix: q.hash,
    contentSha256: q.sha256,
    startTime: q.start_time,
    endTime: q.end_time,
    tags: q.tags,
    ...mimeFilter(q.mime_type),
    user: q.user,
    terms: q.q,
    pathPrefix: q.path,
  };
}

/** `mime_type`: one type, or with `/*` (`image/*`) its whole family; `*\/*` is every type. */
function mimeFilter(mimeType: string | undefined): Pick<AssetFilter, 'mimeType' | 'mimeFamily'> {
  if (mimeType === undefined || mimeType === '*/*' || mimeType === '*') return {};
  if (mimeType.endsWith('/*')) return { mimeFamily: mimeType.slice(0, -1) };
  return { mimeType };
}

/** What list and search need. */
export interface SearchServiceDeps {
  db: Kysely<Database>;
}

/** List and search: one page of matching assets and the exact number of matches. */
export class SearchService {
  constructor(private readonly deps: SearchServiceDeps) {}

  /** `GET /list`: every asset, optionally of one application, newest first by default. */
  list(q: ListQuery): Promise<AssetPage> {
    return this.#page(listFilter(q), windowOf(q));
  }

  /** `GET /search`: the assets matching every filter given. */
  search(q: SearchQuery): Promise<AssetPage> {
    return this.#page(searchFilter(q), windowOf(q));
  }

  /**
   * `POST /search/sha256`: which of many contents the store holds, in one query, so a
   * client checking a folder asks once per batch instead of once per file.
   */
  async lookupContent(q: ContentLookup): Promise<ContentLookupResult> {
    const digests = [...new Set(q.sha256)];
    const rows = await findNewestByContent(this.deps.db, digests, {
      includeTrashed: q.include_trashed,
      includeCorrupted: q.include_corrupted,
    });
    const held = new Map(rows.map((r) => [r.content_sha256, r]));
    const result: ContentLookupResult = { items: [], missing: [] };
    for (const sha256 of digests) {
      const row = held.get(sha256);
      if (row) result.items.push({ sha256, hash: row.hash, timestamp: row.timestamp });
      else result.missing.push(sha256);
    }
    return result;
  }

  async #page(filter: AssetFilter, window: PageWindow): Promise<AssetPage> {
    const { db } = this.deps;
    const viaTag = await tagIndexKey(db, filter);
    // The total ignores the window (contract), so it is a separate count over the same filter.
    const [rows, total] = await Promise.all([
      findAssetPage(db, filter, window, viaTag),
      countAssets(db, filter, viaTag),
    ]);
    return {
      items: rows.map(toAssetRecord),
      pagination: { limit: window.limit, offset: window.offset, total },
    };
  }
}
