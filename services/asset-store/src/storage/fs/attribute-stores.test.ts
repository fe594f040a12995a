import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AssetAttributes, AttributeStore } from '../attributes.js';
import { FallbackAttributeStore } from './fallback-attribute-store.js';
import { SidecarAttributeStore } from './sidecar-attribute-store.js';
import { XattrAttributeStore } from './xattr-attribute-store.js';
import { attributeStoreContract } from '../attribute-store.contract.js';

function refusingStore(code: string): AttributeStore {
  const refuse = () => Promise.reject(Object.assign(new Error(code), { code }));
  return { read: refuse, write: refuse, writeNew: refuse, remove: refuse };
}

attributeStoreContract('xattr on the disk file system', async (dir) =>
  XattrAttributeStore.load().then((s) => ({ store: s, dir })),
);

// tmpfs keeps large values that ext4 refuses; the adapter must work on both.
const SHM = '/dev/shm';
const describeShm = fs.existsSync(SHM) ? attributeStoreContract : () => undefined;
describeShm('xattr on tmpfs', async (diskDir) => {
  fs.rmSync(diskDir, { recursive: true, force: true });
  return { store: await XattrAttributeStore.load(), dir: fs.mkdtempSync(path.join(SHM, 'attr-')) };
});

attributeStoreContract('.meta sidecar', (dir) =>
  Promise.resolve({ store: new SidecarAttributeStore(path.join(dir, '.meta')), dir }),
);

attributeStoreContract('xattr with sidecar fallback', async (dir) => ({
  store: new FallbackAttributeStore(
    await XattrAttributeStore.load(),
    new SidecarAttributeStore(path.join(dir, '.meta')),
    { warn: () => undefined },
  ),
  dir,
}));

attributeStoreContract('sidecar fallback on a file system without user xattrs', (dir) =>
  Promise.resolve({
    store: new FallbackAttributeStore(
      refusingStore('ENOTSUP'),
      new SidecarAttributeStore(path.join(dir, '.meta')),
      { warn: () => undefined },
    ),
    dir,
  }),
);

describe('the fallback', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attr-fallback-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const base: AssetAttributes = {
    hash: 'c'.repeat(64),
    timestamp: 5,
    mime_type: 'text/plain',
    tags: [],
    is_trashed: false,
    is_corrupted: false,
  };

  /** The xattr store with its sidecar fallback over one file, and the warnings it logs. */
  async function fallbackOverXattrs() {
    const warnings: unknown[] = [];
    const sidecar = new SidecarAttributeStore(path.join(dir, '.meta'));
    const xattr = await XattrAttributeStore.load();
    const store = new FallbackAttributeStore(xattr, sidecar, {
      warn: (o: unknown) => warnings.push(o),
    });
    const file = path.join(dir, 'f.txt');
    fs.writeFileSync(file, 'x');
    return { warnings, sidecar, xattr, store, file };
  }

  it('moves a set too large for ext4 xattrs to the sidecar, warns once, and moves back', async () => {
    const { warnings, sidecar, xattr, store, file } = await fallbackOverXattrs();
    const big = { ...base, description: 'd'.repeat(16_384) };
    await store.write(file, big);
    await store.write(file, big);
    expect(warnings).toHaveLength(1);
    expect(fs.existsSync(sidecar.sidecarPath(file))).toBe(true);
    expect(await xattr.read(file)).toBeUndefined();
    expect(await store.read(file)).toEqual(big);
    await store.write(file, base);
    expect(fs.existsSync(sidecar.sidecarPath(file))).toBe(false);
    expect(await xattr.read(file)).toEqual(base);
  });

  it('passes other errors through instead of hiding them', async () => {
    const store = new FallbackAttributeStore(
      refusingStore('EIO'),
      new SidecarAttributeStore(path.join(dir, '.meta')),
      { warn: () => undefined },
    );
    await expect(store.write(path.join(dir, 'f'), base)).rejects.toMatchObject({ code: 'EIO' });
  });

  it('flushes a rewrite, and a failed flush is not a refusal: no sidecar, the set kept', async () => {
    const { warnings, sidecar, xattr, store, file } = await fallbackOverXattrs();
    const flushed: string[] = [];
    const fsync = fs.fsync;
    try {
      fs.fsync = ((fd: number, callback: (err: NodeJS.ErrnoException | null) => void) => {
        flushed.push(fs.readlinkSync(`/proc/self/fd/${fd}`));
        fsync(fd, callback);
      }) as typeof fs.fsync;
      await store.write(file, base);
      expect(flushed).toEqual([fs.realpathSync(file)]);
      // The flush answering with a code a refusal also has.
      fs.fsync = ((_fd: number, callback: (err: NodeJS.ErrnoException | null) => void) =>
        callback(Object.assign(new Error('EACCES'), { code: 'EACCES' }))) as typeof fs.fsync;
      const edited = { ...base, tags: ['edited'] };
      await expect(store.write(file, edited)).rejects.toMatchObject({ code: 'EACCES' });
    } finally {
      fs.fsync = fsync;
    }
    expect(warnings).toEqual([]);
    expect(fs.existsSync(sidecar.sidecarPath(file))).toBe(false);
    expect(await xattr.read(file)).toEqual({ ...base, tags: ['edited'] });
  });
});

describe('a sidecar for a name at the 255-byte cap', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attr-sidecar-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is named after the identity, and written, read and removed there', async () => {
    const hash = 'd'.repeat(64);
    const name = `7_${hash}_${'t'.repeat(255 - `7_${hash}_.bin`.length)}.bin`;
    expect(Buffer.byteLength(name)).toBe(255);
    const file = path.join(dir, name);
    fs.writeFileSync(file, 'x');
    const store = new SidecarAttributeStore(path.join(dir, '.meta'));
    const attrs: AssetAttributes = {
      hash,
      timestamp: 7,
      mime_type: 'application/octet-stream',
      tags: ['t'],
      description: 'long enough to need a sidecar',
      is_trashed: false,
      is_corrupted: false,
    };
    await store.write(file, attrs);
    expect(fs.readdirSync(path.join(dir, '.meta'))).toEqual([`7_${hash}.json`]);
    expect(await store.read(file)).toEqual(attrs);
    await store.remove(file);
    expect(fs.readdirSync(path.join(dir, '.meta'))).toEqual([]);
    expect(await store.read(file)).toBeUndefined();
  });
});
