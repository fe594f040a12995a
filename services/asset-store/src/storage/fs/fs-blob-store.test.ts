import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openAssetStorage } from './asset-storage.js';
import { blobStoreContract } from '../blob-store.contract.js';
import { FsBlobStore } from './fs-blob-store.js';

const quiet = { warn: () => undefined, info: () => undefined };

blobStoreContract('file system', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'blob-contract-'));
  const storage = await openAssetStorage(root, quiet);
  return {
    store: new FsBlobStore(storage),
    close: () => fs.promises.rm(root, { recursive: true, force: true }),
  };
});

describe('file system scratch space', () => {
  it.each([1000, (6 << 20) + 5])(
    'keeps no staged file of %i bytes whose timestamp failed',
    async (bytes) => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'blob-scratch-'));
      try {
        const storage = await openAssetStorage(root, quiet);
        const store = new FsBlobStore(storage);
        const failed = new Promise<number>((_, reject) =>
          setTimeout(() => reject(new Error('index unreachable')), 30),
        );
        await expect(store.stage(failed, [Buffer.alloc(bytes, 1)])).rejects.toThrow(
          'index unreachable',
        );
        const left = fs.readdirSync(storage.layout.tmp, { recursive: true }) as string[];
        expect(left.filter((name) => name.endsWith('.part'))).toEqual([]);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  );
});
