import { S3ServiceException } from '@aws-sdk/client-s3';
import { isStorageUnavailable } from './s3-client.js';

/** An answer S3 gave with this status. */
function answered(status: number, name = 'Answer'): S3ServiceException {
  return new S3ServiceException({ name, $fault: 'server', $metadata: { httpStatusCode: status } });
}

/** Node's network error as it comes from a socket. */
function networkError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:9000`), { code });
}

describe('isStorageUnavailable', () => {
  it('is true for S3 out of reach or saying it cannot serve now', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND']) {
      expect(isStorageUnavailable(networkError(code))).toBe(true);
    }
    expect(isStorageUnavailable(Object.assign(new Error('late'), { name: 'TimeoutError' }))).toBe(
      true,
    );
    // What the SDK's retry layer makes of an error from another realm: its message only.
    expect(
      isStorageUnavailable(
        new Error('AWS SDK error wrapper for Error: connect ECONNREFUSED 127.0.0.1:9000'),
      ),
    ).toBe(true);
    expect(isStorageUnavailable(new Error('socket hang up'))).toBe(true);
    for (const status of [500, 502, 503, 504])
      expect(isStorageUnavailable(answered(status))).toBe(true);
  });

  it('is false for answers a retry would not change, and for other failures', () => {
    for (const status of [400, 403, 404, 409, 501]) {
      expect(isStorageUnavailable(answered(status))).toBe(false);
    }
    expect(isStorageUnavailable(Object.assign(new Error('disk'), { code: 'ENOSPC' }))).toBe(false);
    expect(isStorageUnavailable(new Error('invalid multipart body'))).toBe(false);
    expect(isStorageUnavailable('ECONNREFUSED')).toBe(false);
    expect(isStorageUnavailable(undefined)).toBe(false);
  });
});
