import type { Kysely } from 'kysely';
import { toAssetRecord, type AssetRecord } from '../assets/asset.model.js';
import type { Database } from '../db/database.js';
import {
  assetsByContent,
  childFolders,
  duplicateGroups,
  MAX_GROUP_ITEMS,
  type FolderRow,
} from './browse.repository.js';
import type { DuplicatesQuery, FoldersQuery } from './browse.schemas.js';

/** The `data` of `GET /folders`. */
export interface FolderListing {
  path: string;
  folders: (FolderRow & { path: string })[];
}

/** One group of `GET /duplicates`: a content and the visible assets holding it. */
export interface DuplicateGroup {
  sha256: string;
  count: number;
  items: AssetRecord[];
}

/** The `data` of `GET /duplicates`. */
export interface DuplicatePage {
  groups: DuplicateGroup[];
  pagination: { limit: number; offset: number; total: number };
}

/** Browsing the index as a person does: by folder, and by content held more than once. */
export class BrowseService {
  constructor(private readonly deps: { db: Kysely<Database> }) {}

  /** The subfolders of a folder, each with its full path and its assets' count. */
  async folders(q: FoldersQuery): Promise<FolderListing> {
    const rows = await childFolders(this.deps.db, q.path);
    return {
      path: q.path,
      folders: rows.map((r) => ({ ...r, path: q.path === '' ? r.name : `${q.path}/${r.name}` })),
    };
  }

  /** A page of duplicate groups, the most copies first. */
  async duplicates(q: DuplicatesQuery): Promise<DuplicatePage> {
    const { groups, total } = await duplicateGroups(this.deps.db, q.limit, q.offset);
    const rows = await assetsByContent(
      this.deps.db,
      groups.map((g) => g.content_sha256),
    );
    const byDigest = new Map<string, AssetRecord[]>();
    for (const row of rows) {
      const list = byDigest.get(row.content_sha256!) ?? [];
      if (list.length < MAX_GROUP_ITEMS) list.push(toAssetRecord(row));
      byDigest.set(row.content_sha256!, list);
    }
    return {
      groups: groups.map((g) => ({
        sha256: g.content_sha256,
        count: g.count,
        items: byDigest.get(g.content_sha256) ?? [],
      })),
      pagination: { limit: q.limit, offset: q.offset, total },
    };
  }
}
