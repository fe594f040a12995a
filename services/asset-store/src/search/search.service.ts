import type { Kysely } from 'kysely';
import { toAssetRecord, type AssetRecord } from '../assets/asset.model.js';
import type { Database } from '../db/database.js';
import {
  countAssets,
  findAssetPage,
  tagIndexKey,
  type AssetFilter,
  type PageWindow,
} from './search.repository.js';
import type { ListQuery, SearchQuery } from './search.schemas.js';

/** The `data` of list and search: one page and the exact number of matches. */
export interface AssetPage {
  items: AssetRecord[];
  pagination: { limit: number; offset: number; total: number };
}

/** The page window of a list or search query. */
export function windowOf(q: ListQuery): PageWindow {
  return { order: q.order, limit: q.limit, offset: q.offset, offsetTime: q.offset_time };
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
    mimeType: q.mime_type,
    user: q.user,
  };
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
