import { assetErrors } from '../errors.js';
import type { RebuildMode } from './rebuild.service.js';

/** `?mode=`: absent or `soft` is soft, `hard` is hard, anything else 400. */
export function parseRebuildMode(query: Record<string, unknown>): RebuildMode {
  const mode = query.mode;
  if (mode === undefined || mode === 'soft') return 'soft';
  if (mode === 'hard') return 'hard';
  throw assetErrors.badParameter('mode', 'soft or hard');
}
