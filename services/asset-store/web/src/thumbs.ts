import { fetchThumb } from './api.js';

/** A thumbnail's state: an object URL, or failed (corrupted, missing file, network). */
export type Thumb = { url: string } | { failed: string };

/**
 * Where a thumbnail's cell is now, asked when the thumbnail's turn comes: on screen, drawn
 * just off it (rows kept ready for a scroll), or gone (scrolled past: never fetched).
 */
export type Need = 'visible' | 'near' | 'gone';

const MAX_CACHED = 600;
/** As many as a browser opens to one origin over HTTP/1.1: more would only queue there. */
const PARALLEL = 6;
const cache = new Map<string, Thumb>();
interface Wait {
  hash: string;
  need: () => Need;
  done: (t: Thumb) => void;
}
const queue: Wait[] = [];
let running = 0;
/** Fetches under way for cells on screen. */
let runningVisible = 0;

/** The grid's thumbnail box, in CSS pixels (the service fits the image inside it). */
export const THUMB_PX = 160;

/**
 * The thumbnail of `hash`, from the cache or fetched with at most PARALLEL requests at once.
 * Cells on screen go first, in the order asked; those just off screen wait until none on
 * screen is waiting or loading, so they never take a connection or the browser's time from
 * what the user sees (the first screen above all).
 */
export function loadThumb(hash: string, need: () => Need): Promise<Thumb> {
  const hit = cache.get(hash);
  if (hit) {
    cache.delete(hash);
    cache.set(hash, hit);
    return Promise.resolve(hit);
  }
  return new Promise((done) => {
    queue.push({ hash, need, done });
    // After the caller's synchronous work: its cell is in the page by then.
    queueMicrotask(pump);
  });
}

/** The next fetch to start: the first waiting cell on screen, else one near it when none is busy. */
function next(): { wait: Wait; visible: boolean } | undefined {
  let near = -1;
  for (let i = 0; i < queue.length;) {
    const need = queue[i]!.need();
    if (need === 'gone') {
      queue.splice(i, 1)[0]!.done({ failed: 'skipped' });
      continue;
    }
    if (need === 'visible') return { wait: queue.splice(i, 1)[0]!, visible: true };
    if (near < 0) near = i;
    i++;
  }
  if (near < 0 || runningVisible > 0) return undefined;
  return { wait: queue.splice(near, 1)[0]!, visible: false };
}

function pump(): void {
  while (running < PARALLEL) {
    const picked = next();
    if (!picked) return;
    const { wait, visible } = picked;
    running++;
    if (visible) runningVisible++;
    void fetchThumb(wait.hash, THUMB_PX)
      .then((url): Thumb => ({ url }))
      .catch((err: unknown): Thumb => ({ failed: err instanceof Error ? err.message : 'failed' }))
      .then((thumb) => {
        remember(wait.hash, thumb);
        wait.done(thumb);
      })
      .finally(() => {
        running--;
        if (visible) runningVisible--;
        pump();
      });
  }
}

function remember(hash: string, thumb: Thumb): void {
  cache.set(hash, thumb);
  if (cache.size <= MAX_CACHED) return;
  const [oldest, old] = cache.entries().next().value as [string, Thumb];
  cache.delete(oldest);
  // An <img> still showing it keeps its decoded copy; the next render fetches afresh.
  if ('url' in old) URL.revokeObjectURL(old.url);
}

/** Forgets a thumbnail whose asset changed (trashed, restored, verified). */
export function forgetThumb(hash: string): void {
  const old = cache.get(hash);
  cache.delete(hash);
  if (old && 'url' in old) URL.revokeObjectURL(old.url);
}
