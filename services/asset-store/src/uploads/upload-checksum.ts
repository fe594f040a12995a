import { AsyncLocalStorage } from 'node:async_hooks';
import { assetErrors } from '../errors.js';

/** The one algorithm of the checksum extension we offer (`Tus-Checksum-Algorithm`). */
export const CHECKSUM_ALGORITHM = 'sha256';

const SHA256_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The expected SHA-256 of the request being handled. @tus/server has no checksum extension
 * and hands its data store only the body stream, so the route puts the header's digest here
 * and the store reads it while writing.
 */
const expected = new AsyncLocalStorage<Buffer | undefined>();

/**
 * `Upload-Checksum: sha256 <base64>` as a digest; undefined when absent. Another algorithm,
 * or a value that is not the base64 of 32 bytes: 400 (tus checksum extension).
 */
export function parseUploadChecksum(header: string | string[] | undefined): Buffer | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw assetErrors.badChecksumHeader();
  const [algorithm, value, ...rest] = header.trim().split(/\s+/);
  if (!algorithm || value === undefined || rest.length > 0) throw assetErrors.badChecksumHeader();
  if (algorithm.toLowerCase() !== CHECKSUM_ALGORITHM) {
    throw assetErrors.unsupportedChecksum(algorithm);
  }
  const digest = Buffer.from(value, 'base64');
  if (!BASE64.test(value) || digest.length !== SHA256_BYTES) throw assetErrors.badChecksumHeader();
  return digest;
}

/** Runs `fn` with `digest` as the expected checksum of the body it writes. */
export function withExpectedChecksum<T>(
  digest: Buffer | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  return expected.run(digest, fn);
}

/** The checksum the body being written must match, if its request gave one. */
export function expectedChecksum(): Buffer | undefined {
  return expected.getStore();
}
