/**
 * One row per asset, trashed and corrupted ones flagged, kept by triggers on `asset`: what
 * `q` searches (see migration `20261207120000_asset_text`). Never written by the app.
 */
export interface AssetTextTable {
  timestamp: number;
  /** `asset_search_text(human_filename, human_path, description, tags)`: lowercased. */
  text: string;
  application: string | null;
  user: string | null;
  mime_type: string;
  is_trashed: boolean;
  is_corrupted: boolean;
}
