import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openAssetStorage } from './asset-storage.js';
import { blobStoreContract } from './blob-store.contract.js';
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
