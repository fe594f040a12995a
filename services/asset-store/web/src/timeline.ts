import type { Asset } from './api.js';

/** When an asset belongs on the timeline: taken (EXIF), else stored. */
export function timelineTime(a: Asset): number {
  return a.taken_at ?? a.timestamp;
}

/** The local calendar day of a time, as a key that compares equal for the same day. */
function dayKey(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${d.getMonth()}-${d.getDate()}`;
}

/**
 * The day heading the asset at a grid position opens, if it opens one: the first asset, or
 * one whose local day differs from the one before it. An asset whose predecessor is not
 * loaded yet opens one too (drawn again once it is).
 */
export function dayHeading(a: Asset, previous: Asset | undefined): string | undefined {
  const ms = timelineTime(a);
  if (previous && dayKey(timelineTime(previous)) === dayKey(ms)) return undefined;
  return new Date(ms).toLocaleDateString(undefined, {
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
  });
}
