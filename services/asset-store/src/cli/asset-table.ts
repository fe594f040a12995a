import type { Asset } from '../client/index.js';

/** Characters of a hash a table shows; commands take any unique prefix of 8 or more. */
export const SHORT_HASH = 12;

/** Epoch ms as the local date and time a person reads (`2026-12-07 09:30:05`). */
export function localTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ` +
    `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`
  );
}

/** Bytes as a person reads them: `512 B`, `1.5 KiB`, `12 MiB`. */
export function humanSize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = unit === 0 || value >= 10 ? Math.round(value) : Math.round(value * 10) / 10;
  return `${shown} ${units[unit]}`;
}

/** Rows as an aligned text table under a header (the last column unpadded). */
export function textTable(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].map((l) => `${l}\n`).join('');
}

/**
 * Records as an aligned text table, one line per asset: times in local time (ingest time,
 * and when a picture was taken), sizes in bytes' units, an image's pixels.
 */
export function assetTable(items: readonly Asset[]): string {
  const rows = items.map((item) => [
    item.hash.slice(0, SHORT_HASH),
    localTime(item.timestamp),
    (item.is_trashed ? 'T' : '-') + (item.is_corrupted ? 'C' : '-'),
    item.mime_type,
    humanSize(item.size),
    item.width !== null && item.height !== null ? `${item.width}x${item.height}` : '-',
    item.taken_at !== null ? localTime(item.taken_at) : '-',
    item.tags.join(','),
    [item.human_path, item.human_filename].filter(Boolean).join('/'),
  ]);
  return textTable(['HASH', 'TIME', 'TC', 'TYPE', 'SIZE', 'PIXELS', 'TAKEN', 'TAGS', 'NAME'], rows);
}
