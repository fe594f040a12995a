import type { Asset } from '../client/index.js';

/** Characters of a hash a table shows; commands take any unique prefix of 8 or more. */
export const SHORT_HASH = 12;

/** Records as an aligned text table, one line per asset. */
export function assetTable(items: readonly Asset[]): string {
  const rows = items.map((item) => [
    item.hash.slice(0, SHORT_HASH),
    new Date(item.timestamp).toISOString(),
    (item.is_trashed ? 'T' : '-') + (item.is_corrupted ? 'C' : '-'),
    item.mime_type,
    item.tags.join(','),
    [item.human_path, item.human_filename].filter(Boolean).join('/'),
  ]);
  const header = ['HASH', 'TIME', 'TC', 'TYPE', 'TAGS', 'NAME'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].map((l) => `${l}\n`).join('');
}
