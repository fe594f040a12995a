import { createHash, randomBytes } from 'node:crypto';
import { offThreadDigest } from './content-digest.js';

const sha256 = (chunks: Buffer[]) => {
  const h = createHash('sha256');
  for (const c of chunks) h.update(c);
  return h.digest('hex');
};

/** Cuts `size` random bytes into chunks of `chunk` bytes (the last one shorter). */
const content = (size: number, chunk: number) => {
  const bytes = randomBytes(size);
  const chunks: Buffer[] = [];
  for (let i = 0; i < size; i += chunk) chunks.push(bytes.subarray(i, i + chunk));
  return chunks;
};

describe('offThreadDigest', () => {
  it.each([
    ['empty', 0, 1],
    ['one byte', 1, 1],
    ['exactly one batch', 1 << 20, 64 << 10],
    ['batches and a remainder, odd chunks', (5 << 20) + 7, 65_537],
  ])('matches node:crypto for %s content', async (_name, size, chunk) => {
    const chunks = content(size, chunk);
    const digest = offThreadDigest();
    for (const c of chunks) await digest.update(c);
    await expect(digest.digest()).resolves.toBe(sha256(chunks));
  });

  it('keeps interleaved uploads apart, and a dropped one does not disturb the others', async () => {
    const a = content(3 << 20, 10_000);
    const b = content((2 << 20) + 3, 70_000);
    const [da, db, dropped] = [offThreadDigest(), offThreadDigest(), offThreadDigest()];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (a[i]) await da.update(a[i]!);
      if (b[i]) await db.update(b[i]!);
      await dropped.update(Buffer.from('x'));
    }
    dropped.drop();
    await expect(Promise.all([da.digest(), db.digest()])).resolves.toEqual([sha256(a), sha256(b)]);
  });

  it('does not keep the caller’s buffers: changing a chunk after update changes nothing', async () => {
    const chunk = Buffer.alloc(3 << 20, 7);
    const expected = sha256([chunk]);
    const digest = offThreadDigest();
    await digest.update(chunk);
    chunk.fill(9);
    await expect(digest.digest()).resolves.toBe(expected);
  });

  it('hashes shared views in place, in order with copied chunks, and refuses other memory', async () => {
    const [first, middle, last] = content(3 << 20, 1 << 20);
    const part = Buffer.from(new SharedArrayBuffer(1 << 20));
    const digest = offThreadDigest();
    await digest.update(first!);
    middle!.copy(part);
    await digest.updateShared(part);
    // Only once the promise resolved may the part be refilled.
    part.fill(0);
    await digest.update(last!);
    await expect(digest.digest()).resolves.toBe(sha256([first!, middle!, last!]));
    await expect(offThreadDigest().updateShared(Buffer.alloc(4))).rejects.toThrow(TypeError);
  });

  it('keeps the order of shared views sent without waiting between them', async () => {
    const chunks = content(4 << 20, 1 << 20);
    const parts = chunks.map((c) => {
      const p = Buffer.from(new SharedArrayBuffer(c.length));
      c.copy(p);
      return p;
    });
    const digest = offThreadDigest();
    await Promise.all(parts.map((p) => digest.updateShared(p)));
    await expect(digest.digest()).resolves.toBe(sha256(chunks));
  });
});
