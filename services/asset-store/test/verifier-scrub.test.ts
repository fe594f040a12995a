import { createLogger } from '@svc/envelope';
import { findAssetByHash } from '../src/assets/asset.repository.js';
import { Verifier } from '../src/verifier/verifier.service.js';
import {
  removeContentBehindItsBack,
  replaceContentBehindItsBack,
  storedAttributes,
} from './asset-helpers.js';
import { storeAsset } from './factories.js';
import { createTestApp, type TestApp } from './test-app.js';

// The scrub and the second look of a reader, on whatever keeps the assets (disk or bucket);
// verifier.test.ts has the file system watch and the scrubs of sparse files.

let t: TestApp;
let verifier: Verifier;
const logger = createLogger('verifier-test', 'silent');

beforeAll(async () => {
  t = await createTestApp('verifier_scrub');
}, 60_000);
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await t.index.db.deleteFrom('asset').execute();
  verifier = new Verifier({
    db: t.index.db,
    blobs: t.blobs,
    logger,
  });
});

async function corruptedFlag(hash: string): Promise<boolean | undefined> {
  return (await findAssetByHash(t.index.db, hash))?.is_corrupted;
}

describe('a full scrub', () => {
  it('flags mismatching and missing files, counts them, and clears restored ones', async () => {
    const good = await storeAsset(t, 'fine content');
    const bad = await storeAsset(t, 'original', { folder: 'shard/a' });
    const gone = await storeAsset(t, 'soon gone');
    await replaceContentBehindItsBack(t, bad.row.path, 'tampered');
    await removeContentBehindItsBack(t, gone.row.path);

    const { duration_ms, ...counts } = await verifier.scrub();
    expect(counts).toEqual({ checked: 3, corrupted: 1, missing: 1 });
    expect(duration_ms).toBeGreaterThanOrEqual(0);
    expect(await corruptedFlag(good.row.hash)).toBe(false);
    expect(await corruptedFlag(bad.row.hash)).toBe(true);
    expect(await corruptedFlag(gone.row.hash)).toBe(true);
    expect((await t.blobs.readAttributes(bad.row.path))?.is_corrupted).toBe(true);
    expect(await storedAttributes(t, bad.row.path)).toMatchObject({ is_corrupted: 'true' });
    expect(await storedAttributes(t, good.row.path)).not.toHaveProperty('is_corrupted');

    await replaceContentBehindItsBack(t, bad.row.path, 'original');
    await replaceContentBehindItsBack(t, gone.row.path, 'soon gone');
    const again = await verifier.scrub();
    expect(again).toMatchObject({ checked: 3, corrupted: 0, missing: 0 });
    expect(await corruptedFlag(bad.row.hash)).toBe(false);
    expect(await corruptedFlag(gone.row.hash)).toBe(false);
    expect((await t.blobs.readAttributes(bad.row.path))?.is_corrupted).toBe(false);
    expect(await storedAttributes(t, bad.row.path)).not.toHaveProperty('is_corrupted');
  });
});

describe('a reader that finds a file gone', () => {
  it('has it flagged once a second look agrees, and leaves a file that is back alone', async () => {
    const gone = await storeAsset(t, 'gone for good');
    const back = await storeAsset(t, 'back already');
    await removeContentBehindItsBack(t, gone.row.path);
    await verifier.flagIfMissing(gone.row);
    await verifier.flagIfMissing(back.row);
    expect(await corruptedFlag(gone.row.hash)).toBe(true);
    expect(await corruptedFlag(back.row.hash)).toBe(false);
  });
});
