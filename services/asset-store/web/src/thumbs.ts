import { fetchThumb } from './api.js';

/** A thumbnail's state: an object URL, or failed (corrupted, missing file, network). */
export type Thumb = { url: string } | { failed: string };

const MAX_CACHED = 600;
const PARALLEL = 6;
const cache = new Map<string, Thumb>();
const queue: { hash: string; wanted: () => boolean; done: (t: Thumb) => void }[] = [];
let running = 0;

/** The grid's thumbnail box, in CSS pixels (the service fits the image inside it). */
export const THUMB_PX = 160;

/**
 * The thumbnail of `hash`, from the cache or fetched with at most PARALLEL requests at once;
 * `wanted` is asked when its turn comes, so thumbnails scrolled past are never fetched.
 */
export function loadThumb(hash: string, wanted: () => boolean): Promise<Thumb> {
  const hit = cache.get(hash);
  if (hit) {
    cache.delete(hash);
    cache.set(hash, hit);
    return Promise.resolve(hit);
  }
  return new Promise((done) => {
    queue.push({ hash, wanted, done });
    // After the caller's synchronous work: its cell is in the page by then.
    queueMicrotask(pump);
  });
}

function pump(): void {
  while (running < PARALLEL && queue.length > 0) {
    // In the order asked: the grid draws its rows top to bottom, visible ones first.
    const job = queue.shift()!;
    if (!job.wanted()) {
      job.done({ failed: 'skipped' });
      continue;
    }
    running++;
    void fetchThumb(job.hash, THUMB_PX)
      .then((url): Thumb => ({ url }))
      .catch((err: unknown): Thumb => ({ failed: err instanceof Error ? err.message : 'failed' }))
      .then((thumb) => {
        remember(job.hash, thumb);
        job.done(thumb);
      })
      .finally(() => {
        running--;
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
