import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { decodeFormText } from '../assets/form-text.js';
import type { IngestService } from '../assets/ingest.service.js';
import type { StagedBlob } from '../storage/blob-store.js';
import { assetErrors } from '../errors.js';
import { createAssetHash } from '../storage/content-hash.js';
import { fsyncFile } from '../storage/folder-sync.js';
import { parseInput } from '../validation.js';
import { uploadMetadataSchema } from './upload.schemas.js';
import type { AssetUploadStore, UploadedAsset } from './upload-store.js';

/** What the upload rules need. */
export interface UploadServiceDeps {
  store: AssetUploadStore;
  ingest: IngestService;
  /** This process's staging folder (`layout.tmp`), where a finished upload is handed over. */
  stagingDir: string;
  /** `max_upload_bytes`. */
  maxBytes: number;
}

/** Enough leading bytes for file-type (as `staged-file.ts` keeps them). */
const HEAD_BYTES = 4100;

/**
 * The rules of resumable uploads: metadata checked at creation like the form fields of
 * `POST /ingest`, and a finished upload turned into an asset by the ingest service itself
 * (timestamp issued at completion, same hash, type, name, attributes and index row).
 */
export class UploadService {
  readonly #finishing = new Map<string, Promise<UploadedAsset>>();

  constructor(private readonly deps: UploadServiceDeps) {}

  /**
   * A creation: its length within `max_upload_bytes` (413), and its `Upload-Metadata`, each
   * value decoded from base64 as strict UTF-8 and checked like the same form field (400
   * naming it). Answers the metadata to keep.
   */
  checkCreation(length: number | undefined, header: string | null): Record<string, string> {
    // tus checks Tus-Max-Size itself, but takes 0 for "no limit"; here 0 means 0.
    if (length !== undefined && length > this.deps.maxBytes) {
      throw assetErrors.uploadTooLarge(this.deps.maxBytes);
    }
    // One character per byte, so that `decodeFormText` can decode them strictly. Built from
    // entries: a key such as `__proto__` stays a plain key.
    const entries = (header?.split(',') ?? []).map((pair): [string, string] => {
      const [key = '', value = ''] = pair.trim().split(' ');
      return [key, Buffer.from(value, 'base64').toString('latin1')];
    });
    const raw = Object.fromEntries(entries.filter(([key]) => key !== ''));
    const decoded = decodeFormText(raw) as Record<string, string>;
    parseInput(uploadMetadataSchema, decoded, 'metadata');
    return decoded;
  }

  /**
   * Turns the upload whose last byte arrived into an asset, once (a second call, or one after
   * it finished, answers the same asset). The bytes are handed to the ingest as a staged file
   * by a hard link, so a failure (the index unreachable) leaves the upload whole: a PATCH of
   * no bytes at its end offset tries again.
   */
  finish(id: string): Promise<UploadedAsset> {
    let running = this.#finishing.get(id);
    if (!running) {
      running = this.#finish(id).finally(() => this.#finishing.delete(id));
      this.#finishing.set(id, running);
    }
    return running;
  }

  /**
   * The asset an upload became, while its record is kept (until it expires); while this
   * process is turning it into one, once that is done (a HEAD then names the asset).
   */
  async finishedAsset(id: string): Promise<UploadedAsset | undefined> {
    const running = this.#finishing.get(id);
    if (running) return running.catch(() => undefined);
    return (await this.deps.store.readInfo(id))?.asset;
  }

  /** On the file system the finished file becomes the staged one by a hard link: no copy. */
  async #linkStaged(
    id: string,
    source: string,
    timestamp: number,
    size: number,
  ): Promise<StagedBlob> {
    const { store, stagingDir } = this.deps;
    const known = store.contentDigest(id, size);
    // The bytes go to the disk while they are hashed: the ingest's own fsync then finds
    // nothing left to write, and the completion waits for the longer of the two, not both.
    const [read] = await Promise.all([
      readUpload(source, timestamp, known === undefined),
      fsyncFile(source),
    ]);
    const ref = path.join(stagingDir, `${timestamp}-upload-${id}.part`);
    await fs.promises.link(source, ref);
    return {
      ref,
      timestamp,
      hash: read.hash,
      sha256: known ?? read.sha256!,
      size,
      head: read.head,
    };
  }

  async #finish(id: string): Promise<UploadedAsset> {
    const { store, ingest } = this.deps;
    const info = await store.readInfo(id);
    if (!info) throw assetErrors.uploadNotFound();
    if (info.asset) return info.asset;
    const present = Object.fromEntries(
      Object.entries(info.metadata).filter(([, value]) => value !== null),
    );
    const fields = parseInput(uploadMetadataSchema, present, 'metadata');
    const timestamp = await ingest.nextTimestamp();
    const source = store.dataPath(id);
    const staged =
      ingest.blobKind === 'fs'
        ? await this.#linkStaged(id, source, timestamp, info.size)
        : // Another backend (S3): the finished bytes are streamed into its scratch space.
          await ingest.stageFile(timestamp, source);
    const result = await ingest.ingestStaged(staged, fields, fields.filename, 'tus');
    const asset = { hash: result.hash, timestamp: result.timestamp };
    await store.markFinished(id, asset);
    return asset;
  }
}

/**
 * One read of the finished bytes: the asset hash (it starts with the timestamp, issued only
 * now), the first bytes for type detection, and the plain SHA-256 when it was not kept while
 * the bytes arrived (a restart in between).
 */
async function readUpload(
  file: string,
  timestamp: number,
  withContentHash: boolean,
): Promise<{ hash: string; sha256?: string; head: Buffer }> {
  const hash = createAssetHash(timestamp);
  const plain = withContentHash ? createHash('sha256') : undefined;
  let head = Buffer.alloc(0);
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 4 << 20 })) {
    const bytes = chunk as Buffer;
    hash.update(bytes);
    plain?.update(bytes);
    if (head.length < HEAD_BYTES) {
      head = Buffer.concat([head, bytes.subarray(0, HEAD_BYTES - head.length)]);
    }
  }
  return { hash: hash.digest('hex'), sha256: plain?.digest('hex'), head };
}
