import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import contentDisposition from 'content-disposition';
import { CliError, InterruptedError } from './cli-errors.js';
import { readData, type StoreClient } from './store-client.js';

/** What `get` did. */
export interface DownloadResult {
  path: string;
  hash: string;
  bytes: number;
  /** Bytes a partial file already held and that were kept (0: from the start). */
  resumed_from: number;
  /** `ok`: the content matches `Repr-Digest`; `unchecked`: the store sent none. */
  digest: 'ok' | 'unchecked';
}

/** One `get`: where to, and what stops it. */
export interface DownloadOptions {
  client: StoreClient;
  hash: string;
  /** The file to write; `-` for stdout; absent: the name the store gives. */
  output?: string;
  stdout: NodeJS.WritableStream;
  signal: AbortSignal;
  /** Replace a file already at the target; without it such a file is left alone (exit 1). */
  force?: boolean;
}

/**
 * Downloads an asset into `<output>.part` (or `<hash>.part` until the name is known),
 * continuing a partial file with `Range` + `If-Range`, checks the whole content against
 * `Repr-Digest`, then renames it into place. A mismatch deletes the partial file (its
 * prefix may be what is wrong) and fails.
 */
export async function downloadAsset(options: DownloadOptions): Promise<DownloadResult> {
  const hash = options.hash.toLowerCase();
  if (options.output === '-') return toStdout(options, hash);
  const part = options.output ? `${options.output}.part` : `${hash}.part`;
  let offset = await fsp.stat(part).then(
    (s) => s.size,
    () => 0,
  );
  let res = await get(options, hash, offset);
  if (res.statusCode === 416) {
    // The partial file is as long as the asset (or longer): start again from nothing.
    await res.body.dump();
    offset = 0;
    res = await get(options, hash, 0);
  }
  if (res.statusCode >= 400) await readData(res);
  const target = options.output ?? fileNameOf(res.headers['content-disposition'], hash);
  if (!options.force && (await exists(target))) {
    await res.body.dump();
    throw new CliError(
      `${path.resolve(target)} already exists: not overwritten (--force replaces it)`,
    );
  }
  const resumed = res.statusCode === 206 ? offset : 0;
  const sha = createHash('sha256');
  if (resumed > 0) {
    for await (const chunk of fs.createReadStream(part, { end: resumed - 1 })) {
      sha.update(chunk as Buffer);
    }
  }
  try {
    await pipeline(
      res.body,
      hashing(sha),
      fs.createWriteStream(part, resumed > 0 ? { flags: 'r+', start: resumed } : {}),
      { signal: options.signal },
    );
  } catch (err) {
    if (options.signal.aborted) throw new InterruptedError();
    throw err;
  }
  const bytes = (await fsp.stat(part)).size;
  const digest = checkDigest(res.headers['repr-digest'], sha.digest('base64'));
  if (digest === 'mismatch') {
    await fsp.rm(part, { force: true });
    throw new CliError(`${hash}: the content does not match Repr-Digest; partial file removed`);
  }
  await fsp.rename(part, target);
  return { path: target, hash, bytes, resumed_from: resumed, digest };
}

async function exists(file: string): Promise<boolean> {
  return fsp.stat(file).then(
    () => true,
    () => false,
  );
}

async function toStdout(options: DownloadOptions, hash: string): Promise<DownloadResult> {
  const res = await get(options, hash, 0);
  if (res.statusCode >= 400) await readData(res);
  const sha = createHash('sha256');
  let bytes = 0;
  const counting = hashing(sha, (n) => (bytes += n));
  await pipeline(res.body, counting, options.stdout, { end: false, signal: options.signal });
  const digest = checkDigest(res.headers['repr-digest'], sha.digest('base64'));
  if (digest === 'mismatch') throw new CliError(`${hash}: the content does not match Repr-Digest`);
  return { path: '-', hash, bytes, resumed_from: 0, digest };
}

function get(options: DownloadOptions, hash: string, offset: number) {
  const headers: Record<string, string> =
    offset > 0 ? { range: `bytes=${offset}-`, 'if-range': `"${hash}"` } : {};
  return options.client.raw('GET', options.client.url(`/asset/${hash}`), {
    headers,
    signal: options.signal,
  });
}

/** A pass-through that feeds the digest (and a byte counter) on the way. */
function hashing(sha: Hash, count?: (n: number) => void) {
  return async function* (source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      sha.update(chunk);
      count?.(chunk.length);
      yield chunk;
    }
  };
}

/** Compares RFC 9530 `Repr-Digest: sha-256=:<base64>:` with what arrived. */
function checkDigest(
  header: string | string[] | undefined,
  actual: string,
): 'ok' | 'unchecked' | 'mismatch' {
  const value = Array.isArray(header) ? header.join(',') : header;
  const expected = value ? /sha-256=:([A-Za-z0-9+/=]+):/.exec(value)?.[1] : undefined;
  if (!expected) return 'unchecked';
  return expected === actual ? 'ok' : 'mismatch';
}

/** The store's file name for the asset, reduced to a bare name in the current folder. */
function fileNameOf(header: string | string[] | undefined, hash: string): string {
  const value = Array.isArray(header) ? header[0] : header;
  let name = '';
  try {
    name = value ? (contentDisposition.parse(value).parameters.filename ?? '') : '';
  } catch {
    // A header the parser refuses: fall back to the hash.
  }
  // Never a path: the name comes from the store, and only its last part is kept.
  name = path.basename(name.replaceAll('\\', '/'));
  return name && name !== '.' && name !== '..' ? name : hash;
}
