import { z } from 'zod';
import { hasNulCharacter, splitTags, tagsProblem } from '../assets/tags.js';

const INTEGER = /^\d+$/;

/**
 * A query value that must be a whole number within bounds (query strings only carry text).
 * Without an upper bound of its own, a value is still kept to what a JSON number holds
 * exactly, and a value past that is told so rather than just "an integer".
 */
function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  const range = `expected an integer from ${min} to ${max}`;
  const expected = max === Number.MAX_SAFE_INTEGER ? `expected an integer >= ${min}` : range;
  return z
    .string()
    .regex(INTEGER, expected)
    .transform(Number)
    .refine((n) => n >= min && n <= max, range);
}

function boolean() {
  return z
    .enum(['true', 'false', '1', '0'], 'expected true, false, 1 or 0')
    .transform((v) => v === 'true' || v === '1');
}

/** Free-text exact-match filters; an empty value means the filter is not set. */
function text() {
  return z
    .string()
    .max(1024, 'expected at most 1024 characters')
    .refine((v) => !hasNulCharacter(v), 'expected text without NUL characters')
    .transform((v) => (v === '' ? undefined : v));
}

/** Comma-separated tags, split, normalised and limited exactly like ingest tags. */
const tagList = z.string().transform((csv, ctx) => {
  const tags = splitTags(csv);
  const problem = tagsProblem(tags);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
  return tags;
});

/** Most terms one `q` takes: each is one more condition on every candidate row. */
export const MAX_TERMS = 16;

/**
 * The distinct terms of `q`. The database lowercases them, as it lowercases the text searched
 * (migration `20261207080000_media_and_text_search`), so both fold case alike.
 */
export function searchTerms(q: string): string[] {
  return [...new Set(q.split(/\s+/u).filter((t) => t !== ''))];
}

const pageFields = {
  limit: integer(1, 1000).default(50),
  offset: integer(0).default(0),
  offset_time: integer(0).optional(),
  order: z.enum(['asc', 'desc'], 'expected asc or desc').default('desc'),
  application: text().optional(),
  include_trashed: boolean().default(false),
  include_corrupted: boolean().default(false),
};

/** `GET /list` query parameters. */
export const listQuery = z.object(pageFields);

/** `GET /search` query parameters: the list's plus the search filters. */
export const searchQuery = z.object({
  ...pageFields,
  // What `order` sorts by: the spec's `timestamp` (ingest time) unless asked, or `taken`,
  // the date taken else the ingest time (the console's timeline).
  sort: z.enum(['timestamp', 'taken'], 'expected timestamp or taken').default('timestamp'),
  hash: z
    .string()
    .regex(/^[0-9a-fA-F]{1,64}$/, 'expected 1 to 64 hexadecimal characters')
    .transform((h) => h.toLowerCase())
    .optional(),
  // The content's plain SHA-256 (contract, "Additions"): exactly 64 hex, either case.
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hexadecimal characters')
    .transform((h) => h.toLowerCase())
    .optional(),
  start_time: integer(0).optional(),
  end_time: integer(0).optional(),
  tags: tagList.optional(),
  // Stored lowercase (MIME types are case-insensitive), so matched lowercase; `image/*`
  // is the whole family.
  mime_type: text()
    .transform((v) => v?.toLowerCase())
    .optional(),
  user: text().optional(),
  // Free text: each whitespace-separated term must occur somewhere (contract, "finding
  // things"); no terms at all is no filter.
  q: text()
    .transform((v) => searchTerms(v ?? ''))
    .refine((terms) => terms.length <= MAX_TERMS, `expected at most ${MAX_TERMS} terms`)
    .optional(),
  // A folder: `human_path` equal to it or below it. Slashes at either end are not part of
  // a folder's name.
  path: text()
    .transform((v) => v?.replace(/^\/+|\/+$/g, '') || undefined)
    .optional(),
});

/** Most digests one `POST /search/sha256` takes: the page size list and search allow. */
export const MAX_LOOKUP_DIGESTS = 1000;

const jsonFlag = z.boolean({ error: 'expected true or false' }).default(false);

/** `POST /search/sha256` body: which of these contents the store holds. */
export const contentLookupBody = z.strictObject({
  sha256: z
    .array(
      z
        .string({ error: 'expected 64 hexadecimal characters' })
        .regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hexadecimal characters')
        .transform((h) => h.toLowerCase()),
      { error: 'expected an array of SHA-256 digests' },
    )
    .min(1, 'expected at least 1 digest')
    .max(MAX_LOOKUP_DIGESTS, `expected at most ${MAX_LOOKUP_DIGESTS} digests`),
  include_trashed: jsonFlag,
  include_corrupted: jsonFlag,
});

/** Parsed `GET /list` parameters. */
export type ListQuery = z.infer<typeof listQuery>;
/** Parsed `GET /search` parameters. */
export type SearchQuery = z.infer<typeof searchQuery>;
/** Parsed `POST /search/sha256` body. */
export type ContentLookup = z.infer<typeof contentLookupBody>;
