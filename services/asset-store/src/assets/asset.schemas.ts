import { z } from 'zod';
import {
  characterCount,
  hasLoneSurrogate,
  hasNulCharacter,
  MAX_TAG_LENGTH,
  MAX_TAGS,
  normalizeTags,
  splitTags,
  tagsProblem,
} from './tags.js';

/** Longest free-text field (names, paths, application, user), in characters. */
export const MAX_TEXT = 1024;
/** Longest description, in characters. */
export const MAX_DESCRIPTION = 16_384;

const MIME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

/**
 * `type/subtype`, stored lowercase (MIME types are case-insensitive). Empty means absent,
 * like the other text fields.
 */
const mimeType = z
  .preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string({ error: 'expected a string' })
      .regex(MIME, 'expected a MIME type like type/subtype')
      .transform((s) => s.toLowerCase())
      .optional(),
    // What the preprocess lets through, for the OpenAPI document (`z.toJSONSchema`).
  )
  .meta({ pattern: `^(${MIME.source.slice(1, -1)})?$` });

/** No NUL character, as a JSON Schema pattern (lone surrogates have no pattern). */
const NO_NUL_PATTERN = '^[^\\u0000]*$';

const NO_NUL = 'expected text without NUL characters';
const NO_LONE_SURROGATE = 'expected text without lone surrogates';

/** Free text up to `max` characters; an empty string means absent. */
function optionalText(max: number) {
  return z
    .string({ error: 'expected a string' })
    .refine((s) => characterCount(s) <= max, `expected at most ${max} characters`)
    .refine((s) => !hasNulCharacter(s), NO_NUL)
    .refine((s) => !hasLoneSurrogate(s), NO_LONE_SURROGATE)
    .meta({ maxLength: max, pattern: NO_NUL_PATTERN })
    .optional()
    .transform((s) => (s === '' ? undefined : s));
}

const tagList = z.array(z.string()).superRefine((tags, ctx) => {
  const problem = tagsProblem(tags);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** The ingest-time metadata fields, shared by file and data ingest. */
export const ingestFieldsSchema = z.object({
  mime_type: mimeType,
  human_file_name: optionalText(MAX_TEXT),
  human_readable_path: optionalText(MAX_TEXT),
  application: optionalText(MAX_TEXT),
  user: optionalText(MAX_TEXT),
  description: optionalText(MAX_DESCRIPTION),
  tags: z
    .string({ error: 'expected a comma-separated string' })
    .optional()
    .transform((s) => (s === undefined ? [] : splitTags(s)))
    .pipe(tagList),
});

/** Validated ingest metadata: tags normalised, empty texts absent. */
export type IngestFields = z.infer<typeof ingestFieldsSchema>;

/**
 * `POST /ingest` also takes `sha256`, the content's expected plain SHA-256 (64 hex, either
 * case; empty means absent): a file that differs is refused and not kept. A text part it does
 * not know is refused too, as a file part under another name is.
 */
export const fileIngestFieldsSchema = ingestFieldsSchema.strict().extend({
  sha256: z
    .preprocess(
      (v) => (v === '' ? undefined : v),
      z
        .string({ error: 'expected a string' })
        .regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hexadecimal characters')
        .transform((s) => s.toLowerCase())
        .optional(),
    )
    .meta({ pattern: '^([0-9a-fA-F]{64})?$' }),
});

/** Validated file-ingest metadata. */
export type FileIngestFields = z.infer<typeof fileIngestFieldsSchema>;

/** The body of `PATCH /asset/{hash}`: only `tags` and `description`. */
/**
 * `GET /asset/{hash}` query: `disposition=inline` lets a browser show the content in a frame
 * (the console's PDF viewer), still under `Content-Security-Policy: sandbox`; other
 * parameters are ignored, as they always were.
 */
export const downloadQuery = z.object({
  disposition: z.enum(['attachment', 'inline']).default('attachment'),
});

export const patchSchema = z.strictObject({
  tags: z
    .array(
      z
        .string({ error: 'expected an array of strings' })
        .meta({ maxLength: MAX_TAG_LENGTH, pattern: NO_NUL_PATTERN }),
      { error: 'expected an array of strings' },
    )
    .meta({ maxItems: MAX_TAGS })
    .transform(normalizeTags)
    .pipe(tagList)
    .optional(),
  description: z
    .string({ error: 'expected a string' })
    .refine(
      (s) => characterCount(s) <= MAX_DESCRIPTION,
      `expected at most ${MAX_DESCRIPTION} characters`,
    )
    .refine((s) => !hasNulCharacter(s), NO_NUL)
    .refine((s) => !hasLoneSurrogate(s), NO_LONE_SURROGATE)
    .meta({ maxLength: MAX_DESCRIPTION, pattern: NO_NUL_PATTERN })
    .optional(),
});

/** A validated metadata change. */
export type AssetPatch = z.infer<typeof patchSchema>;
