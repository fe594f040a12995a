import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '@svc/envelope';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { openAssetStorage } from '../src/storage/asset-storage.js';
import { ingestFile } from './asset-helpers.js';
import { useTestApp } from './test-app.js';

const t = useTestApp('storage_startup');

describe('start-up', () => {
  it('removes leftovers in .tmp and creates the dot-folders', async () => {
    fs.writeFileSync(path.join(t.storage.layout.tmp, 'crashed.part'), 'half');
    const storage = await openAssetStorage(t.storageRoot, createLogger('t', 'silent'));
    expect(fs.readdirSync(storage.layout.tmp)).toEqual([]);
    expect(fs.existsSync(storage.layout.meta)).toBe(true);
  });

  it('never reuses a timestamp after a restart, even when the clock went back', async () => {
    const before = await ingestFile(t.app, 'before restart', 'a.txt');
    const restarted = createApp({
      config: t.config,
      storage: t.storage,
      clock: () => 1_000,
      db: t.index.db,
      ping: t.index.ping,
      logger: createLogger('t', 'silent'),
      version: '0.1.0',
    });
    const after = await ingestFile(restarted, 'after restart', 'a.txt');
    expect(after.timestamp).toBe(before.timestamp + 1);
    await request(restarted).get(`/api/v1/can/0/asset/${after.hash}`).expect(200);
  });
});
