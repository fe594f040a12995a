import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '@svc/envelope';
import { findAssetByHash } from '../src/assets/asset.repository.js';
import { Verifier } from '../src/verifier/verifier.service.js';
import { VerifierWorker } from '../src/verifier/verifier.worker.js';
import { ingestFile } from './asset-helpers.js';
import { storeAsset } from './factories.js';
import { createTestApp, type TestApp } from './test-app.js';

let t: TestApp;
let verifier: Verifier;
let worker: VerifierWorker | undefined;
const logger = createLogger('verifier-test', 'silent');

beforeAll(async () => {
  t = await createTestApp('verifier');
}, 60_000);
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await t.index.db.deleteFrom('asset').execute();
  verifier = new Verifier({ db: t.index.db, blobs: t.blobs, logger });
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});

async function corruptedFlag(hash: string): Promise<boolean | undefined> {
  return (await findAssetByHash(t.index.db, hash))?.is_corrupted;
}

/** Polls the row until its flag is `expected`; fails after `ms`. */
async function flagWithin(hash: string, expected: boolean, ms: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if ((await corruptedFlag(hash)) === expected) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`is_corrupted did not become ${expected} within ${ms} ms`);
}

async function watch(): Promise<void> {
  worker = VerifierWorker.start({ verifier, root: t.storageRoot, intervalHours: 0, logger });
  await worker.ready;
}

describe('a full scrub', () => {
  it('ends at once when the verifier stops, leaving the files it had not finished unflagged', async () => {
    // Two huge (sparse) files fill both scrub slots; the small one waits behind them.
    const huge = [await storeAsset(t, 'h1'), await storeAsset(t, 'h2')];
    for (const h of huge) fs.truncateSync(h.file, 32 * 2 ** 30);
    const small = await storeAsset(t, 'small');
    const scrub = verifier.scrub();
    await new Promise((r) => setTimeout(r, 300));

    const began = Date.now();
    verifier.stop();
    const { duration_ms, ...counts } = await scrub;
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(counts).toEqual({ checked: 0, corrupted: 0, missing: 0 });
    expect(duration_ms).toBeGreaterThanOrEqual(300);
    for (const asset of [...huge, small]) expect(await corruptedFlag(asset.row.hash)).toBe(false);
  }, 15_000);

  it('runs in the background at start-up', async () => {
    const bad = await storeAsset(t, 'before start');
    fs.writeFileSync(bad.file, 'changed while down');
    await watch();
    await flagWithin(bad.row.hash, true, 5000);
  });
});

describe('the periodic scrub', () => {
  it('runs every verify_interval_hours and catches what no watch reported', async () => {
    const asset = await storeAsset(t, 'checked on a schedule');
    // Watch reports are dropped here, so only a scrub can find the damage.
    verifier.verifyPaths = () => Promise.resolve();
    worker = VerifierWorker.start({ verifier, root: t.storageRoot, intervalHours: 0.0004, logger });
    await worker.ready;
    await new Promise((r) => setTimeout(r, 300));
    fs.writeFileSync(asset.file, 'damaged between scrubs');
    // 0.0004 h = 1.44 s between scrubs.
    await flagWithin(asset.row.hash, true, 5000);
  }, 15_000);
});

describe('watching the storage root', () => {
  it.each([
    ['overwritten', (file: string) => fs.writeFileSync(file, 'something else entirely')],
    ['truncated', (file: string) => fs.truncateSync(file, 3)],
    ['deleted', (file: string) => fs.rmSync(file)],
    [
      'replaced by a rename',
      (file: string) => {
        fs.writeFileSync(`${file}.new`, 'replacement');
        fs.renameSync(`${file}.new`, file);
      },
    ],
  ])(
    'flags a file %s within 5 seconds and clears it once restored',
    async (_how, damage) => {
      const content = 'precious bytes '.repeat(100);
      const asset = await storeAsset(t, content, { folder: 'deep/er' });
      await watch();
      damage(asset.file);
      await flagWithin(asset.row.hash, true, 5000);
      fs.writeFileSync(asset.file, content);
      await flagWithin(asset.row.hash, false, 5000);
    },
    15_000,
  );

  it('checks a changed file within 5 seconds even while a long scrub fills its lane', async () => {
    // Two huge (sparse) files, oldest first, keep both scrub slots hashing for a minute.
    const huge = [await storeAsset(t, 'h1'), await storeAsset(t, 'h2')];
    for (const h of huge) fs.truncateSync(h.file, 32 * 2 ** 30);
    const content = 'checked in its own lane';
    const asset = await storeAsset(t, content);
    let scrubbed: Awaited<ReturnType<Verifier['scrub']>> | undefined;
    const scrub = verifier.scrub.bind(verifier);
    verifier.scrub = async () => (scrubbed = await scrub());
    await watch();
    await new Promise((r) => setTimeout(r, 300));

    try {
      fs.writeFileSync(asset.file, 'corrupted mid-scrub');
      await flagWithin(asset.row.hash, true, 5000);
      expect(scrubbed).toBeUndefined();
    } finally {
      // Shrinking the huge files ends their reads, so the scrub (and the test) finishes.
      for (const h of huge) fs.truncateSync(h.file, 0);
    }
    const started = Date.now();
    while (!scrubbed && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 50));
    expect(scrubbed).toMatchObject({ checked: 3, corrupted: 3, missing: 0 });
  }, 30_000);

  it('flags every asset of a deleted folder', async () => {
    const a = await storeAsset(t, 'a', { folder: 'gone-folder' });
    const b = await storeAsset(t, 'b', { folder: 'gone-folder/sub' });
    await watch();
    fs.rmSync(path.join(t.storageRoot, 'gone-folder'), { recursive: true });
    await flagWithin(a.row.hash, true, 5000);
    await flagWithin(b.row.hash, true, 5000);
  });

  it('ignores the service’s own dot-folders', async () => {
    const asset = await storeAsset(t, 'x');
    const checked: string[] = [];
    const verifyAsset = verifier.verifyAsset.bind(verifier);
    verifier.verifyAsset = (row, lane) => {
      checked.push(row.hash);
      return verifyAsset(row, lane);
    };
    await verifier.verifyPaths([
      `.thumbs/${asset.row.hash}_1x1.jpg`,
      `.meta/${path.basename(asset.file)}.json`,
      '.tmp/upload',
    ]);
    expect(checked).toEqual([]);
    await verifier.verifyPaths([path.basename(asset.file)]);
    expect(checked).toEqual([asset.row.hash]);
  });

  it('checks a burst of changed paths together: each asset once, by name or by folder', async () => {
    const a = await storeAsset(t, 'a');
    const b = await storeAsset(t, 'b');
    const c = await storeAsset(t, 'c', { folder: 'burst' });
    const untouched = await storeAsset(t, 'untouched');
    fs.writeFileSync(a.file, 'changed a');
    fs.writeFileSync(c.file, 'changed c');
    const checked: string[] = [];
    const verifyAsset = verifier.verifyAsset.bind(verifier);
    verifier.verifyAsset = (row, lane) => {
      checked.push(row.hash);
      return verifyAsset(row, lane);
    };
    const unknown = path.basename(a.file).replace(a.row.hash, 'f'.repeat(64));
    await verifier.verifyPaths([
      path.basename(a.file),
      path.basename(b.file),
      path.basename(a.file),
      unknown,
      'burst',
    ]);
    expect(checked.sort()).toEqual([a.row.hash, b.row.hash, c.row.hash].sort());
    expect(await corruptedFlag(a.row.hash)).toBe(true);
    expect(await corruptedFlag(b.row.hash)).toBe(false);
    expect(await corruptedFlag(c.row.hash)).toBe(true);
    expect(await corruptedFlag(untouched.row.hash)).toBe(false);
  });

  it('skips the echo of a file the service just stored, yet flags a change right after', async () => {
    // The app's blob store notes its renames where the worker looks (as the runtime wires them).
    const { app } = t;
    const { ownRenames } = t.runtime.resources;
    const checked: string[] = [];
    const verifyAsset = verifier.verifyAsset.bind(verifier);
    verifier.verifyAsset = (row, lane) => {
      checked.push(row.hash);
      return verifyAsset(row, lane);
    };
    const debounce = { quietMs: 50, maxWaitMs: 200 };
    worker = VerifierWorker.start({
      verifier,
      root: t.storageRoot,
      intervalHours: 0,
      logger,
      debounce,
      ownRenames,
    });
    await worker.ready;
    const stored = await ingestFile(app, 'fresh bytes', 'fresh.txt');
    // Well past the debounce: a reported change would have been checked by now.
    await new Promise((r) => setTimeout(r, 600));
    expect(checked).toEqual([]);
    fs.writeFileSync(path.join(t.storageRoot, stored.filename), 'tampered');
    await flagWithin(stored.hash, true, 5000);
    expect(checked).toContain(stored.hash);
  });
});
