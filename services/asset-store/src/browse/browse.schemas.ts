import { z } from 'zod';
import { hasNulCharacter } from '../assets/tags.js';

const INTEGER = /^\d+$/;

function integer(min: number, max: number) {
  const range = `expected an integer from ${min} to ${max}`;
  return z
    .string()
    .regex(INTEGER, range)
    .transform(Number)
    .refine((n) => n >= min && n <= max, range);
}

/** `GET /folders`: the folder whose subfolders are asked (none: the top level). */
export const foldersQuery = z.object({
  // Slashes at either end are not part of a folder's name (as `path=` of `/search`).
  path: z
    .string()
    .max(1024, 'expected at most 1024 characters')
    .refine((v) => !hasNulCharacter(v), 'expected text without NUL characters')
    .transform((v) => v.replace(/^\/+|\/+$/g, ''))
    .optional()
    .transform((v) => v ?? ''),
});
/** `GET /folders`, parsed. */
export type FoldersQuery = z.output<typeof foldersQuery>;

/** `GET /duplicates`: a page of groups, the largest first. */
export const duplicatesQuery = z.object({
  limit: integer(1, 100).default(20),
  offset: integer(0, Number.MAX_SAFE_INTEGER).default(0),
});
/** `GET /duplicates`, parsed. */
export type DuplicatesQuery = z.output<typeof duplicatesQuery>;
