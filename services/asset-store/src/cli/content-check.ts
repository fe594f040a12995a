import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { Limiter } from '../concurrency/limiter.js';
import { ApiError } from './cli-errors.js';
import type { PlannedFile } from './file-walk.js';
import { MAX_LOOKUP_DIGESTS, type StoreClient } from './store-client.js';

/** A planned file after the skip check: its digest and the asset holding that content. */
export interface CheckedFile {
  file: PlannedFile;
  /** Plain SHA-256 of the content; absent with `--force` (nothing was checked). */
  sha256?: string;
  /** The store's newest visible asset with this content: the file is skipped. */
  held?: { hash: string; timestamp: number };
  /**
   * An earlier file of this run with the same content, which the store did not hold: this
   * one waits for it and is skipped once it is stored.
   */
  sameAs?: PlannedFile;
  /** Why the file could not be hashed or checked: it is reported failed. */
  error?: unknown;
  /** The bytes hashed, kept for a small file so it is sent without a second read. */
  content?: Buffer;
}

/** What the check needs of the run. */
export interface CheckOptions {
  client: StoreClient;
  files: readonly PlannedFile[];
  /** `--force`: no hashing, no lookup; every file is sent. */
  force: boolean;
  abort: AbortSignal;
}

/**
 * Files up to this size are read at once and keep the bytes read for the hash until they
 * are sent: a batch then holds at most 16 MiB, and a folder of small files is read once.
 */
export const KEEP_CONTENT_BYTES = 16 << 10;

/** Files read and hashed at once while a batch is checked. */
const HASH_CONCURRENCY = 8;
/** The first batch is small so the first upload starts soon; later ones grow to the API's bound. */
const FIRST_BATCH = 64;

/** Batch sizes: 64, 256, then 1,000 (the most one `POST /search/sha256` takes). */
function batches(files: readonly PlannedFile[]): PlannedFile[][] {
  const out: PlannedFile[][] = [];
  let size = FIRST_BATCH;
  for (let i = 0; i < files.length; i += size, size = Math.min(size * 4, MAX_LOOKUP_DIGESTS)) {
    out.push(files.slice(i, i + size));
  }
  return out;
}

/**
 * The files in order, each with its skip verdict. Files are hashed locally and looked up a
 * batch at a time with `POST /search/sha256` (one request per up to 1,000 files, where a
 * search per file cost the store more than the ingest); the next batch is checked while
 * the current one is uploaded. A store without the batch endpoint is asked per file.
 */
export async function* checkFiles(opts: CheckOptions): AsyncGenerator<CheckedFile> {
  if (opts.force) {
    for (const file of opts.files) yield { file };
    return;
  }
  const all = batches(opts.files);
  const mode = { batchLookup: true };
  // The first file of the run with each content the store does not hold yet.
  const firstWith = new Map<string, PlannedFile>();
  let pending = all.length > 0 ? checkBatch(opts, mode, all[0]!) : undefined;
  for (let i = 0; pending; i++) {
    const checked = await pending;
    pending = i + 1 < all.length ? checkBatch(opts, mode, all[i + 1]!) : undefined;
    for (const c of checked) {
      if (c.sha256 === undefined || c.held || c.error !== undefined) continue;
      const first = firstWith.get(c.sha256);
      if (first) c.sameAs = first;
      else firstWith.set(c.sha256, c.file);
    }
    yield* checked;
  }
}

/** Hashes one batch and asks the store about it; never rejects (errors go per file). */
async function checkBatch(
  opts: CheckOptions,
  mode: { batchLookup: boolean },
  files: PlannedFile[],
): Promise<CheckedFile[]> {
  const limiter = new Limiter(HASH_CONCURRENCY);
  const checked = await Promise.all(
    files.map((file) =>
      limiter.run(async (): Promise<CheckedFile> => {
        try {
          if (file.size <= KEEP_CONTENT_BYTES) {
            const content = readSmallFile(file.path);
            return { file, content, sha256: createHash('sha256').update(content).digest('hex') };
          }
          return { file, sha256: await hashFile(file, opts.abort) };
        } catch (error) {
          return { file, error };
        }
      }),
    ),
  );
  const hashed = checked.filter((c) => c.sha256 !== undefined);
  if (hashed.length === 0) return checked;
  try {
    const held = await lookup(opts, mode, hashed, limiter);
    for (const c of hashed) c.held = held.get(c.sha256!);
  } catch (error) {
    for (const c of hashed) c.error = error;
  }
  return checked;
}

type Holders = Map<string, { hash: string; timestamp: number }>;

async function lookup(
  opts: CheckOptions,
  mode: { batchLookup: boolean },
  hashed: CheckedFile[],
  limiter: Limiter,
): Promise<Holders> {
  if (mode.batchLookup) {
    try {
      return await lookupBatch(opts, hashed);
    } catch (error) {
      const older = error instanceof ApiError && (error.status === 404 || error.status === 405);
      if (!older) throw error;
      // A store from before `POST /search/sha256`: ask it per file from now on.
      mode.batchLookup = false;
    }
  }
  return lookupEach(opts, hashed, limiter);
}

async function lookupBatch(opts: CheckOptions, hashed: CheckedFile[]): Promise<Holders> {
  const found = await opts.client.lookupContent(
    hashed.map((c) => c.sha256!),
    opts.abort,
  );
  return new Map(found.items.map((i) => [i.sha256, { hash: i.hash, timestamp: i.timestamp }]));
}

async function lookupEach(
  opts: CheckOptions,
  hashed: CheckedFile[],
  limiter: Limiter,
): Promise<Holders> {
  const held: Holders = new Map();
  await Promise.all(
    hashed.map((c) =>
      limiter.run(async () => {
        const found = await opts.client.findByContent(c.sha256!, opts.abort);
        if (found) held.set(c.sha256!, { hash: found.hash, timestamp: found.timestamp });
      }),
    ),
  );
  return held;
}

/**
 * A small file's bytes, read synchronously: `fs.promises.readFile` costs four thread-pool
 * round trips (open, fstat, read, close), which a profile showed as the CLI's largest own
 * CPU cost on a folder of 4 KiB files; a blocking read of at most 16 KiB takes microseconds.
 */
export function readSmallFile(file: string): Buffer {
  return fs.readFileSync(file);
}

/** Plain SHA-256 of a file: small ones read whole, large ones streamed. */
export async function hashFile(file: PlannedFile, signal: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  if (file.size <= 1 << 20) {
    hash.update(await fsp.readFile(file.path, { signal }));
    return hash.digest('hex');
  }
  for await (const chunk of fs.createReadStream(file.path, { highWaterMark: 1 << 20, signal })) {
    hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}
