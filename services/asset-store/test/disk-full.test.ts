import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { ingestFile, rowCount, storedFiles, tmpFiles } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

/**
 * A storage root on a 1 MiB tmpfs, so the disk really fills. Mounting takes root on Linux;
 * elsewhere these tests are skipped.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-store-full-'));
function mountSmallDisk(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', root], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const mounted = mountSmallDisk();
// Skipped where a small tmpfs cannot be mounted (not root): a full disk is not faked.
const onSmallDisk = mounted ? it : it.skip;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('disk_full', { storage_root: root });
});
afterAll(async () => {
  try {
    await t?.close();
  } finally {
    try {
      if (mounted) execFileSync('umount', [root]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
});

const INSUFFICIENT = {
  status: 'error',
  error: 'insufficient storage: the server is out of disk space',
};

/** Nothing of an upload is left: no file, nothing staged, no sidecar, no row. */
async function expectNothingKept(): Promise<void> {
  expect(storedFiles(t)).toEqual([]);
  expect(tmpFiles(t)).toEqual([]);
  expect(fs.readdirSync(t.storage.layout.meta)).toEqual([]);
  expect(await rowCount(t)).toBe(0);
}

describe('a storage root whose disk is full', () => {
  onSmallDisk('answers a file ingest 507 and keeps no part of it', async () => {
    const res = await request(t.app)
      .post('/api/v1/can/0/ingest')
      .attach('file', randomBytes(2 << 20), 'big.bin')
      .expect(507);
    expect(res.body).toEqual(INSUFFICIENT);
    await expectNothingKept();
  });

  onSmallDisk('answers a data ingest 507 and keeps no part of it', async () => {
    const res = await request(t.app)
      .post('/api/v1/can/0/ingest/data')
      .send({ data: randomBytes(1 << 20).toString('hex') })
      .expect(507);
    expect(res.body).toEqual(INSUFFICIENT);
    await expectNothingKept();
  });

  onSmallDisk('stores what fits once more, right after', async () => {
    const { filename } = await ingestFile(t.app, 'small enough', 'small.txt');
    expect(storedFiles(t)).toEqual([filename]);
    expect(await rowCount(t)).toBe(1);
  });
});
