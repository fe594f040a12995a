import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import type { BlobStore } from '../storage/blob-store.js';
import { findAssetByHashForUpdate, updateAsset } from './asset.repository.js';
import type { AssetRow } from './asset.table.js';
import { writeRowAttributes } from './attribute-intents.js';
import { NO_MEDIA, PROBE_BYTES, probeMedia, type MediaFacts } from './media-probe.js';

/** The result of a `{"kind": "backfill"}` job. */
export interface BackfillReport {
  /** Images probed. */
  probed: number;
  /** Of those, images sharp read: width and height now known. */
  images: number;
  /** Images sharp could not read: their facts stay null (a later run tries again). */
  unreadable: number;
  /** Images left for a later run: their file could not be read or written. */
  errors: number;
}

/** What the backfill needs. */
export interface MediaBackfillDeps {
  db: Kysely<Database>;
  blobs: Pick<BlobStore, 'read' | 'writeAttributes'>;
  logger: Pick<Logger, 'warn'>;
}

/** Rows fetched per query. */
const BATCH = 200;

/**
 * Images without their facts: stored before they were kept, or unreadable. The same
 * condition as the partial index `asset_image_unprobed`, so that index serves it.
 */
function unprobed(eb: ExpressionBuilder<Database, 'asset'>) {
  return eb.and([eb('width', 'is', null), eb('mime_type', 'like', 'image/%')]);
}

/** How many images have no facts (the job's total). */
export async function countUnprobed(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('asset')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(unprobed)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Gives images indexed before their facts were kept their `width`, `height` and
 * `taken_at`, oldest first: each one's header is read and probed with no lock held, then
 * its row and attributes are written under the row's lock (as a PATCH does), one asset at
 * a time, so reads and ingests go on meanwhile. A file that cannot be read is counted and
 * left for a later run, and so is an image sharp cannot read (nothing to write).
 */
export async function backfillMedia(
  deps: MediaBackfillDeps,
  options: { signal: AbortSignal; onProgress: (done: number) => void },
): Promise<BackfillReport> {
  const report: BackfillReport = { probed: 0, images: 0, unreadable: 0, errors: 0 };
  let after = -1;
  for (;;) {
    options.signal.throwIfAborted();
    const rows = await deps.db
      .selectFrom('asset')
      .selectAll()
      .where(unprobed)
      .where('timestamp', '>', after)
      .orderBy('timestamp')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return report;
    for (const row of rows) {
      options.signal.throwIfAborted();
      after = Number(row.timestamp);
      try {
        const facts = await probeRow(deps, row);
        if (facts.width !== null) await saveFacts(deps, row.hash, facts);
        report.probed++;
        if (facts.width !== null) report.images++;
        else report.unreadable++;
      } catch (err) {
        report.errors++;
        deps.logger.warn({ err, hash: row.hash }, 'backfill: asset left for a later run');
      }
      options.onProgress(report.probed + report.errors);
    }
  }
}

async function probeRow(deps: MediaBackfillDeps, row: AssetRow): Promise<MediaFacts> {
  const size = Number(row.size);
  if (size === 0) return NO_MEDIA;
  const stream = await deps.blobs.read(row.path, {
    start: 0,
    end: Math.min(size, PROBE_BYTES) - 1,
  });
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return probeMedia(Buffer.concat(chunks));
}

async function saveFacts(deps: MediaBackfillDeps, hash: string, facts: MediaFacts) {
  await deps.db.transaction().execute(async (trx) => {
    // Locked, so a PATCH or trash meanwhile is neither lost nor written over.
    const current = await findAssetByHashForUpdate(trx, hash);
    if (!current || current.width !== null) return;
    const row = await updateAsset(trx, hash, facts);
    if (row) await writeRowAttributes(deps, row);
  });
}
