import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAssetHash, hashBuffer, hashFile, isAssetHash } from './content-hash.js';

describe('asset hash', () => {
  it('is SHA-256 of the 8-byte big-endian timestamp followed by the content', async () => {
    const ts = 1_763_700_000_123;
    const prefix = Buffer.from([0, 0, 0x01, 0x9a, 0xa4, 0xb6, 0x45, 0x7b]);
    expect(prefix.readBigUInt64BE()).toBe(BigInt(ts));
    const expected = createHash('sha256')
      .update(Buffer.concat([prefix, Buffer.from('hello')]))
      .digest('hex');
    expect(createAssetHash(ts).update('hello').digest('hex')).toBe(expected);
    expect(hashBuffer('hello', ts)).toBe(expected);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hash-'));
    const file = path.join(dir, 'f');
    fs.writeFileSync(file, 'hello');
    await expect(hashFile(file, ts)).resolves.toBe(expected);
    fs.rmSync(dir, { recursive: true });
  });

  it('gives identical content different hashes at different times', () => {
    expect(hashBuffer('x', 1)).not.toBe(hashBuffer('x', 2));
  });

  it('recognises 64 hex characters in either case', () => {
    expect(isAssetHash('A'.repeat(64))).toBe(true);
    expect(isAssetHash('g'.repeat(64))).toBe(false);
    expect(isAssetHash('a'.repeat(63))).toBe(false);
  });
});
