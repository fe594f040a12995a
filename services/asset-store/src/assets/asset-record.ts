import { z } from 'zod';

const hex64 = /^[0-9a-f]{64}$/;
/** Optional text: absent when unknown, never `null` or an empty string. */
const optionalText = (description: string) => z.string().min(1).optional().describe(description);

/**
 * The spec's asset metadata record (metadata, list and search answer it): the one place its
 * fields are declared. The server's `AssetRecord` type, the OpenAPI document's `AssetRecord`
 * schema and so the generated client's `Asset` (src/client) all come from here; a new
 * field is added here, to the index row and the file attributes, then the client is
 * regenerated (`pnpm --filter asset-store gen:client`).
 */
export const assetRecordSchema = z.strictObject({
  hash: z.string().regex(hex64).describe('SHA-256(timestamp ‖ content), lowercase hex.'),
  mime_type: z.string().describe('MIME type of the stored content.'),
  application: optionalText('Application that produced the asset.'),
  user: optionalText('User or agent identity.'),
  tags: z.array(z.string()).describe('Tags, normalised; empty when none.'),
  description: optionalText('Human-readable description.'),
  human_filename: optionalText('Logical file name (`human_file_name` at ingest).'),
  human_path: optionalText('Logical folder path (`human_readable_path` at ingest).'),
  timestamp: z.int().min(0).describe('Ingest time, Unix epoch milliseconds.'),
  is_trashed: z.boolean().describe('In the trash (soft-deleted).'),
  is_corrupted: z
    .boolean()
    .describe('The content no longer matches the hash, or the file is gone (verifier).'),
  size: z.int().min(0).describe('Size of the content in bytes.'),
  width: z
    .int()
    .min(1)
    .nullable()
    .describe('Image width in pixels, after EXIF orientation; null for anything else.'),
  height: z
    .int()
    .min(1)
    .nullable()
    .describe('Image height in pixels, after EXIF orientation; null for anything else.'),
  taken_at: z
    .int()
    .nullable()
    .describe(
      'When the picture was taken (EXIF `DateTimeOriginal`, read as UTC unless ' +
        '`OffsetTimeOriginal` gives the zone), Unix epoch milliseconds; null when unknown.',
    ),
});

/**
 * The record as the API shows it: optional fields absent when unknown, `tags` always an
 * array. The keys the files' attributes carry, less the content digest, plus `size`; the
 * probed facts (`width`, `height`, `taken_at`) are always present, null when unknown.
 */
export type AssetRecord = z.infer<typeof assetRecordSchema>;
