import fs from 'node:fs';
import { fileTypeFromBuffer } from 'file-type';
import { isUniqueViolation, type PipelinedSession } from '@svc/database';
import type { Kysely } from 'kysely';
import mime from 'mime-types';
import type { Database } from '../db/database.js';
import type { IngestMetrics, IngestRoute } from '../metrics/asset-metrics.js';
import { assetErrors } from '../errors.js';
import type { AssetAttributes } from '../storage/attributes.js';
import type { FileIdentities } from '../storage/fs/file-identities.js';
import type { BlobStore, StagedBlob } from '../storage/blob-store.js';
import { chooseExtension, physicalFilename } from '../storage/layout.js';
import { AssetIndexWriter } from './asset-index-writer.js';
import { decodeFormText } from './form-text.js';
import { indentLossless, plainNumbers } from './json-numbers.js';
import { parseInput } from '../validation.js';
import { knownFacts, rowFromAttributes } from './asset.model.js';
import { findAssetByHash } from './asset.repository.js';
import { isImageType, PROBE_BYTES, probeMedia } from './media-probe.js';
import {
  fileIngestFieldsSchema,
  ingestFieldsSchema,
  type FileIngestFields,
  type IngestFields,
} from './asset.schemas.js';
import type { TimestampSource } from '../timestamps/timestamp-issuer.js';

/** The `data` of both ingest answers. */
export interface IngestResult {
  timestamp: number;
  hash: string;
  filename: string;
}

/** What ingest needs from outside. */
export interface IngestDeps {
  db: Kysely<Database>;
  /** Stages uploads and puts them, with their attributes, where the assets live. */
  blobs: BlobStore;
  timestamps: TimestampSource;
  /** Set for an index on a server: the writer's connection; rows then go in during fsyncs. */
  indexSession?: PipelinedSession;
  /** Counts ingests and their bytes by route, for `/metrics`. */
  metrics?: IngestMetrics;
  /**
   * Blobs known good: one this ingest wrote (from bytes it hashed) is recorded when the
   * adapter names its version, so its first download need not read it twice.
   */
  identities?: FileIdentities;
}

/** An upload the storage engine has staged, with the part's own file name. */
export interface StagedUpload {
  staged: StagedBlob;
  originalName?: string;
}

/**
 * Turns staged content into an asset: validate the metadata, decide type and name, rename
 * into place, write the attributes, then the index row. Any failure removes what was done,
 * so an unacknowledged ingest leaves no file, no attributes and no row.
 */
export class IngestService {
  readonly #index: AssetIndexWriter;

  constructor(private readonly deps: IngestDeps) {
    this.#index = new AssetIndexWriter(deps.db, deps.indexSession);
  }

  /** The next asset timestamp (strictly increasing). */
  nextTimestamp(): Promise<number> {
    return this.deps.timestamps.next();
  }

  /** Where assets live: a finished resumable upload on `fs` is staged by a hard link. */
  get blobKind(): BlobStore['kind'] {
    return this.deps.blobs.kind;
  }

  /** Stages a finished local file by streaming it into the blob store's scratch space. */
  stageFile(timestamp: number, file: string): Promise<StagedBlob> {
    return this.deps.blobs.stage(timestamp, fs.createReadStream(file, { highWaterMark: 1 << 20 }));
  }

  /** `POST /ingest`: the staged `file` part plus the form's text fields. */
  async ingestUpload(upload: StagedUpload | undefined, form: unknown): Promise<IngestResult> {
    if (!upload) throw assetErrors.missingFilePart();
    let fields: FileIngestFields;
    try {
      fields = parseInput(fileIngestFieldsSchema, decodeFormText(form), 'form');
      if (fields.sha256 !== undefined && fields.sha256 !== upload.staged.sha256) {
        throw assetErrors.digestMismatch();
      }
    } catch (err) {
      await this.deps.blobs.discard(upload.staged);
      throw err;
    }
    return this.ingestStaged(upload.staged, fields, upload.originalName);
  }

  /**
   * A staged file with its validated metadata becomes an asset: type, extension, name,
   * attributes, row. `POST /ingest` and a finished resumable upload both end here, so the
   * rules are one code. The staged file is removed on failure.
   */
  async ingestStaged(
    staged: StagedBlob,
    fields: IngestFields,
    originalName: string | undefined,
    route: Exclude<IngestRoute, 'data'> = 'form',
  ): Promise<IngestResult> {
    let mimeType: string;
    try {
      mimeType =
        fields.mime_type ??
        lookupMime(originalName) ??
        lookupMime(fields.human_file_name) ??
        (await fileTypeFromBuffer(staged.head))?.mime ??
        'application/octet-stream';
    } catch (err) {
      await this.deps.blobs.discard(staged);
      throw err;
    }
    // The contract's order: the type's extension (application/octet-stream has `bin`), then
    // the original name's, then `bin`.
    const ext = chooseExtension(mime.extension(mimeType), originalName ?? fields.human_file_name);
    const result = await this.commit(staged, fields, mimeType, ext);
    this.deps.metrics?.ingested(route, staged.size);
    return result;
  }

  /**
   * `POST /ingest/data`: a JSON body holding `data` and the same metadata fields, read with
   * its numbers lossless (`jsonBody`), so `data` is stored with the digits sent.
   */
  async ingestData(body: unknown): Promise<IngestResult> {
    if (body === null || typeof body !== 'object' || Array.isArray(body) || !('data' in body)) {
      throw assetErrors.missingData();
    }
    const { data, ...rest } = body;
    const fields = parseInput(ingestFieldsSchema, plainNumbers(rest), 'body');
    const mimeType = fields.mime_type ?? 'application/json';
    const ext = mime.extension(mimeType) || 'json';
    const content = indentedJson(data);
    const staged = await this.deps.blobs.stage(this.nextTimestamp(), [content]);
    const result = await this.commit(staged, fields, mimeType, ext);
    this.deps.metrics?.ingested('data', staged.size);
    return result;
  }

  private async commit(
    staged: StagedBlob,
    fields: IngestFields,
    mimeType: string,
    ext: string,
  ): Promise<IngestResult> {
    const filename = physicalFilename({
      timestamp: staged.timestamp,
      hash: staged.hash,
      tags: fields.tags,
      ext,
    });
    // Only images are probed (a header read, in libuv's pool); anything else has no facts.
    const media = isImageType(mimeType) ? knownFacts(await this.#probe(staged)) : undefined;
    const attrs: AssetAttributes = {
      ...media,
      hash: staged.hash,
      timestamp: staged.timestamp,
      mime_type: mimeType,
      application: fields.application,
      user: fields.user,
      tags: fields.tags,
      description: fields.description,
      human_filename: fields.human_file_name,
      human_path: fields.human_readable_path,
      is_trashed: false,
      is_corrupted: false,
      content_sha256: staged.sha256,
    };
    // The file is made durable while the writer inserts its row, which commits only once
    // the file is durable: a crash leaves at worst a file the index does not name yet,
    // never a row whose file is gone. One insert takes every waiting row.
    const placement = this.deps.blobs.place(staged, filename, attrs);
    try {
      await this.#index.insert(
        rowFromAttributes(attrs, placement.name, staged.size),
        placement.durable,
      );
    } catch (err) {
      if (!(await this.#indexedFromOurFile(err, staged.hash, placement.name))) {
        await placement.undo();
        throw err;
      }
    }
    // Outside the undo's reach: the asset stands whatever this answers.
    const version = await placement.verifiedVersion?.catch(() => undefined);
    if (version) this.deps.identities?.record(placement.name, version);
    return { timestamp: staged.timestamp, hash: staged.hash, filename };
  }

  /** An image's facts from its staged header; nulls when it cannot be read. */
  async #probe(staged: StagedBlob) {
    try {
      return await probeMedia(await this.deps.blobs.readStagedHead(staged, PROBE_BYTES));
    } catch (err) {
      await this.deps.blobs.discard(staged);
      throw err;
    }
  }

  /**
   * True when the row was refused because a rebuild got there first: a soft rebuild, or
   * another instance's start-up recovery, can index this ingest's file (complete, with its
   * attributes) between its placement and its row's commit. That row names this very file,
   * so the ingest stands; removing the file would leave the row without one.
   */
  async #indexedFromOurFile(err: unknown, hash: string, relativePath: string): Promise<boolean> {
    if (!isUniqueViolation(err)) return false;
    const row = await findAssetByHash(this.deps.db, hash).catch(() => undefined);
    return row?.path === relativePath;
  }
}

/**
 * The stored text of a data ingest. Nesting deeper than the writer can recurse into, and
 * indenting values past the longest string V8 makes, throw a RangeError: the client's input
 * rather than a fault of the service.
 */
function indentedJson(data: unknown): Buffer {
  try {
    return Buffer.from(indentLossless(data), 'utf8');
  } catch (err) {
    if (err instanceof RangeError) throw assetErrors.unstorableData();
    throw err;
  }
}

function lookupMime(name: string | undefined): string | undefined {
  if (!name) return undefined;
  return mime.lookup(name) || undefined;
}
