import { isLosslessNumber, stringify as stringifyLossless } from 'lossless-json';

/**
 * A value read with `lossless`, its numbers made plain again: for the metadata fields
 * beside `data`, which take no numbers and only need them named correctly in a 400.
 */
export function plainNumbers(value: unknown): unknown {
  if (isLosslessNumber(value)) return Number(value.value);
  if (Array.isArray(value)) return value.map(plainNumbers);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainNumbers(v)]));
  }
  return value;
}

/**
 * A value read with `lossless` as indented JSON text, numbers written with the digits
 * they were sent with; everything else as `JSON.stringify(value, null, 2)` writes it.
 */
export function indentLossless(value: unknown): string {
  return stringifyLossless(value, null, 2) ?? 'null';
}
