/**
 * The event types, in the contract's words. A module of its own, with no imports, so the
 * CLI's `--events` check reads the same list as the feed without loading the feed.
 */
export const EVENT_TYPES = [
  'asset.created',
  'asset.updated',
  'asset.trashed',
  'asset.restored',
  'asset.corrupted',
  'asset.repaired',
  'asset.purged',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
