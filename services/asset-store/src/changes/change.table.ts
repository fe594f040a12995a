import type { Generated, Selectable } from 'kysely';

/** One change to the index (the outbox): written by the `asset` table's triggers. */
export interface AssetEventTable {
  /** Order of writing, the index's own. */
  seq: Generated<number>;
  /** The feed's position (the cursor), given at commit in commit order; null until then. */
  pos: number | null;
  type: string;
  hash: string;
  /** Epoch milliseconds. */
  at: number;
  /** The row after the change (its record's columns), or null for `asset.purged`. */
  data: Record<string, unknown> | null;
}

/** The one row that numbers events: the last position given, and the last one pruned. */
export interface AssetEventHeadTable {
  one: Generated<boolean>;
  last: number;
  pruned_through: number;
}

export type AssetEventRow = Selectable<AssetEventTable>;
