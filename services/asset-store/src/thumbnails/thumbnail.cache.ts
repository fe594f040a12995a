import type { BlobStore } from '../storage/blob-store.js';
import type { Box } from './thumbnail.renderer.js';

/** The blob port's derivative cache, where thumbnails live (`.thumbs/` on disk or in the bucket). */
export type ThumbnailCache = Pick<
  BlobStore,
  'readCached' | 'writeCached' | 'removeCached' | 'listCached'
>;

/** `<hash>_<w>x<h>.jpg`, named by the box asked for (contract). */
export function thumbnailName(hash: string, box: Box): string {
  return `${hash}_${box.width}x${box.height}.jpg`;
}

/** The name prefix every cached size of one asset shares (for purge). */
export function thumbnailsOf(hash: string): string {
  return `${hash}_`;
}
