import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { AssetAttributes } from './attributes.js';
import type { BlobPlacement, BlobStore, StagedBlob } from './blob-store.js';
import { hashBuffer } from './content-hash.js';
import { physicalFilename } from './layout.js';

/** What a contract run needs: a fresh, empty store, and how to let go of it afterwards. */
export interface BlobContractSubject {
  store: BlobStore;
  close(): Promise<void>;
}

class TooLarge extends Error {}

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function names(store: BlobStore): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of store.list()) found.push(entry.name);
  return found.sort();
}

function attributesFor(staged: StagedBlob, extra: Partial<AssetAttributes> = {}): AssetAttributes {
  return {
    hash: staged.hash,
    timestamp: staged.timestamp,
    mime_type: 'application/octet-stream',
    tags: ['a', 'b'],
    is_trashed: false,
    is_corrupted: false,
    content_sha256: staged.sha256,
    ...extra,
  };
}

/** A content of `bytes` bytes, different for each `seed`, in 64 KiB chunks. */
function* chunks(bytes: number, seed = 1): Generator<Buffer> {
  for (let offset = 0; offset < bytes; offset += 64 << 10) {
    // Each chunk filled differently and numbered, so a range read from the wrong place shows.
    const chunk = Buffer.alloc(Math.min(64 << 10, bytes - offset), (offset >> 16) * seed);
    if (chunk.length >= 8) chunk.writeDoubleBE(offset * seed);
    yield chunk;
  }
}

/**
 * The behaviour every BlobStore adapter must show; the file system runs it always, S3
 * whenever the test harness has an S3 server (tus-node-server's store contract is the model).
 */
export function blobStoreContract(name: string, make: () => Promise<BlobContractSubject>): void {
  describe(`blob store contract: ${name}`, () => {
    let subject: BlobContractSubject;
    let store: BlobStore;
    let timestamp = 1_763_700_000_000;
    beforeEach(async () => {
      subject = await make();
      store = subject.store;
    });
    afterEach(() => subject.close());

    /** Stages and places `content` under its physical name; the name and its attributes. */
    async function put(content: Buffer, extra: Partial<AssetAttributes> = {}) {
      const staged = await store.stage(++timestamp, [content]);
      const attrs = attributesFor(staged, extra);
      const filename = physicalFilename({ ...staged, tags: attrs.tags, ext: 'bin' });
      const placement = store.place(staged, filename, attrs);
      await placement.durable;
      return { name: placement.name, attrs, staged, placement };
    }

    /** A version the placement names is the one `stat` gives: a reader trusts it unread. */
    async function expectVerifiedVersion(placement: BlobPlacement, name: string) {
      if (!placement.verifiedVersion) return;
      const stat = await store.stat(name);
      await expect(placement.verifiedVersion).resolves.toBe(stat?.version);
    }

    it('stages content with both digests, places it with its attributes, and lists it', async () => {
      const content = Buffer.from('hello blob');
      const { name, attrs, staged, placement } = await put(content);
      await expectVerifiedVersion(placement, name);
      expect(staged).toMatchObject({
        hash: hashBuffer(content, staged.timestamp),
        sha256: sha256(content),
        size: content.length,
        head: content,
      });
      expect(await readAll(await store.read(name))).toEqual(content);
      await expect(store.readAttributes(name)).resolves.toEqual(attrs);
      await expect(store.stat(name)).resolves.toMatchObject({ size: content.length });
      expect(await names(store)).toEqual([name]);
    });

    it('streams a large content in bounded pieces and reads any range of it', async () => {
      const bytes = 12 << 20;
      const expected = Buffer.concat([...chunks(bytes)]);
      const staged = await store.stage(++timestamp, Readable.from(chunks(bytes)));
      expect(staged.hash).toBe(hashBuffer(expected, staged.timestamp));
      const attrs = attributesFor(staged);
      const placement = store.place(staged, 'large.bin', attrs);
      await placement.durable;
      await expectVerifiedVersion(placement, 'large.bin');
      const range = await readAll(
        await store.read('large.bin', { start: 5 << 20, end: (6 << 20) + 9 }),
      );
      // Compared by digest: Jest's deep equality walks a mebibyte byte by byte.
      expect(sha256(range)).toBe(sha256(expected.subarray(5 << 20, (6 << 20) + 10)));
      // Spans of 8 MiB and more: S3 reads them over a connection of their own.
      const whole = await readAll(await store.read('large.bin', { start: 0, end: bytes - 1 }));
      expect(sha256(whole)).toBe(sha256(expected));
      const span = await readAll(await store.read('large.bin', { start: 3, end: bytes - 2 }));
      expect(sha256(span)).toBe(sha256(expected.subarray(3, bytes - 1)));
      await expect(store.stat('large.bin')).resolves.toMatchObject({ size: bytes });
    });

    /** A timestamp the issuer answers only after `ms`: staging starts without it. */
    function later(ms: number, value: number | Error): Promise<number> {
      return new Promise((resolve, reject) =>
        setTimeout(() => (value instanceof Error ? reject(value) : resolve(value)), ms),
      );
    }

    it.each([
      ['a small content', 1000],
      ['a content of several parts', (6 << 20) + 5],
    ])(
      'stages %s before its timestamp is known, hashed over the timestamp given',
      async (_, bytes) => {
        const expected = Buffer.concat([...chunks(bytes, 3)]);
        const issued = ++timestamp;
        const staged = await store.stage(later(30, issued), Readable.from(chunks(bytes, 3)));
        expect(staged).toMatchObject({
          timestamp: issued,
          hash: hashBuffer(expected, issued),
          sha256: sha256(expected),
          size: bytes,
        });
        await store.place(staged, 'pending.bin', attributesFor(staged)).durable;
        expect(sha256(await readAll(await store.read('pending.bin')))).toBe(sha256(expected));
      },
    );

    it.each([
      ['a small content', 1000],
      ['a content of several parts', (6 << 20) + 5],
    ])('fails the staging of %s when its timestamp fails, leaving nothing', async (_, bytes) => {
      const source = Readable.from(chunks(bytes));
      const failed = later(30, new Error('index unreachable'));
      await expect(store.stage(failed, source)).rejects.toThrow('index unreachable');
      expect(await names(store)).toEqual([]);
    });

    it('leaves nothing of an upload past its limit, and rethrows the limit error', async () => {
      const limit = { maxBytes: 100_000, error: () => new TooLarge('too large') };
      const source = Readable.from(chunks(6 << 20));
      await expect(store.stage(++timestamp, source, limit)).rejects.toBeInstanceOf(TooLarge);
      // The source's listener (multer) answers with the error the stream is destroyed with.
      expect(source.errored).toBeInstanceOf(TooLarge);
      expect(await names(store)).toEqual([]);
    });

    it('leaves nothing of an upload that passes its limit after several parts', async () => {
      const limit = { maxBytes: 11 << 20, error: () => new TooLarge('too large') };
      const source = Readable.from(chunks(16 << 20));
      await expect(store.stage(++timestamp, source, limit)).rejects.toBeInstanceOf(TooLarge);
      expect(source.errored).toBeInstanceOf(TooLarge);
      expect(await names(store)).toEqual([]);
    });

    it('stages a content of a whole number of parts exactly', async () => {
      const bytes = 10 << 20;
      const expected = Buffer.concat([...chunks(bytes)]);
      const staged = await store.stage(++timestamp, Readable.from(chunks(bytes)));
      expect(staged.size).toBe(bytes);
      await store.place(staged, 'parts.bin', attributesFor(staged)).durable;
      expect(sha256(await readAll(await store.read('parts.bin')))).toBe(sha256(expected));
    });

    it('leaves nothing of an upload whose source fails, and rethrows its error', async () => {
      const source = Readable.from(
        (function* () {
          yield Buffer.alloc(1000, 1);
          throw new Error('client gone');
        })(),
      );
      await expect(store.stage(++timestamp, source)).rejects.toThrow('client gone');
      expect(await names(store)).toEqual([]);
    });

    it('discards a staged blob that will not become an asset', async () => {
      const staged = await store.stage(++timestamp, [Buffer.from('never mind')]);
      await store.discard(staged);
      await store.discard(staged);
      expect(await names(store)).toEqual([]);
    });

    it('undoes a placement: no blob, no attributes', async () => {
      const { name, placement } = await put(Buffer.from('undone'));
      await placement.undo();
      await expect(store.stat(name)).resolves.toBeUndefined();
      await expect(store.readAttributes(name)).resolves.toBeUndefined();
      expect(await names(store)).toEqual([]);
    });

    it('answers a missing blob: stat undefined, read ENOENT, no attributes', async () => {
      await expect(store.stat('nothing.bin')).resolves.toBeUndefined();
      await expect(store.read('nothing.bin')).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(store.readAttributes('nothing.bin')).resolves.toBeUndefined();
    });

    it('replaces the whole attribute set, UTF-8 and line breaks included', async () => {
      const { name, attrs } = await put(Buffer.from('attrs'));
      const changed: AssetAttributes = {
        ...attrs,
        application: 'cämera',
        tags: ['ü', 'b c'],
        description: 'line one\nline two',
        human_filename: 'Bild 1.png',
        is_trashed: true,
      };
      await store.writeAttributes(name, changed);
      await expect(store.readAttributes(name)).resolves.toEqual(changed);
      const smaller = { ...attrs, tags: [], is_corrupted: true };
      await store.writeAttributes(name, smaller);
      await expect(store.readAttributes(name)).resolves.toEqual(smaller);
      expect(await readAll(await store.read(name))).toEqual(Buffer.from('attrs'));
    });

    it('keeps a set too large for native attributes, and takes a small one back', async () => {
      const { name, attrs } = await put(Buffer.from('big attrs'), {
        description: 'd'.repeat(8000),
      });
      await expect(store.readAttributes(name)).resolves.toEqual(attrs);
      const small = { ...attrs, description: 'short' };
      await store.writeAttributes(name, small);
      await expect(store.readAttributes(name)).resolves.toEqual(small);
      expect(await names(store)).toEqual([name]);
    });

    it('changes the version when the content is replaced', async () => {
      const first = await put(Buffer.from('version one'));
      const before = await store.stat(first.name);
      // Placing never replaces a blob (an ingest must not take another's name): a
      // replacement is a delete and a new blob under the old name, as done behind our back.
      await store.delete(first.name);
      const staged = await store.stage(++timestamp, [Buffer.from('version two!')]);
      await store.place(staged, first.name, attributesFor(staged)).durable;
      expect((await store.stat(first.name))?.version).not.toBe(before?.version);
    });

    it('deletes a blob with its attributes; deleting twice is fine', async () => {
      const { name } = await put(Buffer.from('bye'), { description: 'x'.repeat(8000) });
      await store.delete(name);
      await store.delete(name);
      await expect(store.stat(name)).resolves.toBeUndefined();
      await expect(store.readAttributes(name)).resolves.toBeUndefined();
      expect(await names(store)).toEqual([]);
    });

    it('lists only top-level names, or only the names a filter accepts, when asked', async () => {
      const a = await put(Buffer.from('a'));
      const b = await put(Buffer.from('b'));
      const listed = async (options: Parameters<BlobStore['list']>[0]) => {
        const found: string[] = [];
        for await (const entry of store.list(options)) found.push(entry.name);
        return found.sort();
      };
      expect(await listed({ topLevel: true })).toEqual([a.name, b.name].sort());
      expect(await listed({ accept: (n) => n === b.name })).toEqual([b.name]);
    });

    it('caches derivatives apart from the blobs, and removes them by prefix', async () => {
      await store.writeCached('abc_64x64.jpg', Buffer.from('jpeg 1'));
      await store.writeCached('abc_128x128.jpg', Buffer.from('jpeg 2'));
      await store.writeCached('def_64x64.jpg', Buffer.from('jpeg 3'));
      await expect(store.readCached('abc_64x64.jpg')).resolves.toEqual(Buffer.from('jpeg 1'));
      expect(await names(store)).toEqual([]);
      const cached = [];
      for await (const { name, size } of store.listCached()) cached.push({ name, size });
      expect(cached.sort((x, y) => x.name.localeCompare(y.name))).toEqual([
        { name: 'abc_128x128.jpg', size: 6 },
        { name: 'abc_64x64.jpg', size: 6 },
        { name: 'def_64x64.jpg', size: 6 },
      ]);
      await store.removeCached('abc_');
      await expect(store.readCached('abc_64x64.jpg')).resolves.toBeUndefined();
      await expect(store.readCached('abc_128x128.jpg')).resolves.toBeUndefined();
      await expect(store.readCached('def_64x64.jpg')).resolves.toEqual(Buffer.from('jpeg 3'));
    });
  });
}
