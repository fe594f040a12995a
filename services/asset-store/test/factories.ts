import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { AssetRow, NewAssetRow } from '../src/assets/asset.table.js';
import { createAssetHash, hashBuffer } from '../src/storage/content-hash.js';
import type { Database } from '../src/db/database.js';
import type { AssetAttributes } from '../src/storage/attributes.js';
import type { BlobStore } from '../src/storage/blob-store.js';
import { putBehindItsBack } from './s3-bucket.js';
import { createAttributeStore } from '../src/storage/fs/fallback-attribute-store.js';
import { physicalFilename, storageLayout, toAbsolutePath } from '../src/storage/layout.js';

let nextTimestamp = 1_700_000_000_000;

/** A fresh, strictly increasing timestamp, as the service would issue. */
export function freshTimestamp(): number {
  nextTimestamp += 1000;
  return nextTimestamp;
}

/**
 * An index row only (no file): enough for list and search, which read nothing but the
 * index. Every field can be overridden; hash and timestamp are unique by default.
 */
export async function insertAssetRow(
  db: Kysely<Database>,
  fields: Partial<NewAssetRow> = {},
): Promise<AssetRow> {
  const timestamp = fields.timestamp ?? freshTimestamp();
  const hash = fields.hash ?? randomBytes(32).toString('hex');
  return db
    .insertInto('asset')
    .values({
      hash,
      timestamp,
      mime_type: 'application/octet-stream',
      tags: [],
      path: `${timestamp}_${hash}.bin`,
      size: 0,
      ...fields,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** What a stored fixture asset consists of. */
export interface StoredAsset {
  row: AssetRow;
  /** Absolute path of the file (where it would be: on S3 the asset is an object). */
  file: string;
}

/** Options of `storeAsset`: record fields, the file extension and a sub-folder. */
export type StoreOptions = Partial<Omit<AssetAttributes, 'hash' | 'timestamp'>> & {
  ext?: string;
  /** Folder under the storage root (sharding); none by default. */
  folder?: string;
  /** Skip writing attributes (a file as if copied in without them). */
  withoutAttributes?: boolean;
};

/**
 * A complete asset as ingest leaves it: the file under its physical name, its attributes
 * and its index row, with a hash computed the contract's way. With `blobs` on S3
 * (`useS3Blobs`), the content and attributes go to the bucket through the port instead.
 */
export async function storeAsset(
  ctx: { index: { db: Kysely<Database> }; storageRoot: string; blobs?: BlobStore; bucket?: string },
  content: Buffer | string,
  options: StoreOptions = {},
): Promise<StoredAsset> {
  const { ext = 'bin', folder, withoutAttributes = false, ...fields } = options;
  const timestamp = freshTimestamp();
  const hash = hashBuffer(content, timestamp);
  const tags = fields.tags ?? [];
  const name = physicalFilename({ timestamp, hash, tags, ext });
  const relative = folder ? `${folder}/${name}` : name;
  const layout = storageLayout(ctx.storageRoot);
  const file = toAbsolutePath(layout, relative);
  const attrs: AssetAttributes = {
    mime_type: 'application/octet-stream',
    is_trashed: false,
    is_corrupted: false,
    ...fields,
    tags,
    hash,
    timestamp,
  };
  if (ctx.bucket && withoutAttributes) {
    // An object put there by hand: no metadata, no sidecar.
    await putBehindItsBack(ctx.bucket, relative, content);
  } else if (ctx.blobs?.kind === 's3') {
    const blobs = ctx.blobs;
    const staged = await blobs.stage(timestamp, [Buffer.from(content)]);
    await blobs.place(staged, relative, attrs).durable;
  } else {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content);
  }
  if (!withoutAttributes && !ctx.bucket) {
    const store = await createAttributeStore(layout.meta, { warn: () => undefined });
    await store.write(file, attrs);
  }
  const row = await insertAssetRow(ctx.index.db, {
    hash,
    timestamp,
    mime_type: attrs.mime_type,
    application: attrs.application ?? null,
    user: attrs.user ?? null,
    tags,
    description: attrs.description ?? null,
    human_filename: attrs.human_filename ?? null,
    human_path: attrs.human_path ?? null,
    is_trashed: attrs.is_trashed,
    is_corrupted: attrs.is_corrupted,
    path: relative,
    size: Buffer.byteLength(content),
  });
  return { row, file };
}

/**
 * A complete asset of `size` zero bytes in a sparse file (no disk space, yet a verify reads
 * and hashes every byte: a job that takes a while, in a test fixture, not in the product).
 * Its hash is computed the contract's way; its row has no content digest yet, as one from
 * before digests were kept (a verify fills it in). `withoutAttributes`: a file as if copied
 * in without them, which a rebuild must then hash.
 */
export async function storeSparseAsset(
  ctx: { index: { db: Kysely<Database> }; storageRoot: string },
  size: number,
  options: { withoutAttributes?: boolean } = {},
): Promise<StoredAsset> {
  const timestamp = freshTimestamp();
  const hasher = createAssetHash(timestamp);
  const zeros = Buffer.alloc(Math.min(size, 8 << 20));
  for (let left = size; left > 0; left -= zeros.length) {
    hasher.update(left >= zeros.length ? zeros : zeros.subarray(0, left));
  }
  const hash = hasher.digest('hex');
  const name = physicalFilename({ timestamp, hash, tags: [], ext: 'bin' });
  const layout = storageLayout(ctx.storageRoot);
  const file = toAbsolutePath(layout, name);
  await fs.writeFile(file, '');
  await fs.truncate(file, size);
  const attrs: AssetAttributes = {
    mime_type: 'application/octet-stream',
    tags: [],
    is_trashed: false,
    is_corrupted: false,
    hash,
    timestamp,
  };
  if (!options.withoutAttributes) {
    const store = await createAttributeStore(layout.meta, { warn: () => undefined });
    await store.write(file, attrs);
  }
  const row = await insertAssetRow(ctx.index.db, { hash, timestamp, path: name, size });
  return { row, file };
}
