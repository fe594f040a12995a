/**
 * One row per tag of each visible asset, kept by triggers on `asset`: the tag search's
 * index (see migration `20261122100000_asset_tag_index`). Never written by the app.
 */
export interface AssetTagTable {
  tag: string;
  timestamp: number;
  application: string | null;
  user: string | null;
  mime_type: string;
  tags: string[];
}
