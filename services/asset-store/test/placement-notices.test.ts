import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '@svc/envelope';
import { testDatabaseMode } from '@svc/testing';
import { waitUntil } from '@svc/testing/service-process';
import { sql } from 'kysely';
import { findAssetByHash } from '../src/assets/asset.repository.js';
import { SCHEMA } from '../src/db/database.js';
import { FileIdentities } from '../src/storage/fs/file-identities.js';
import { PlacementNotices } from '../src/storage/fs/placement-notices.js';
import { Verifier } from '../src/verifier/verifier.service.js';
import { VerifierWorker } from '../src/verifier/verifier.worker.js';
import { ingestFile } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

const logger = createLogger('placement-notices-test', 'silent');
const HASH = 'a'.repeat(64);
/** A schema name no runtime of this file announces under. */
const ALONE = 'placement_notices_alone';

/** Waits until each of `all` has heard another instance say it listens. */
function listening(...all: PlacementNotices[]): Promise<void> {
  return waitUntil(() => Promise.resolve(all.every((n) => n.peersListening())), 5_000);
}

/** Waits until `notices` heard of `hash` (doing `meanwhile` before each look); its version. */
async function heardOf(
  notices: PlacementNotices,
  hash: string,
  meanwhile?: () => void,
): Promise<string> {
  let version: string | undefined;
  await waitUntil(() => {
    meanwhile?.();
    version = notices.take(hash);
    return Promise.resolve(version !== undefined);
  }, 5_000);
  return version!;
}

// Skipped on the embedded database: notices travel through a server's LISTEN/NOTIFY, and
// the embedded database has one process, so no other instance to tell.
const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;

onServer('instances on one folder tell each other of the files they place', () => {
  let t: TestApp;
  let url: string;
  const opened: PlacementNotices[] = [];
  let worker: VerifierWorker | undefined;

  /**
   * An instance's notices. The test app's own runtime announces on its schema's channel too,
   * so the tests of the channel alone use a channel of their own (`ALONE`).
   */
  function notices(schema = ALONE): PlacementNotices {
    const n = PlacementNotices.start(url, schema, logger);
    opened.push(n);
    return n;
  }

  beforeAll(async () => {
    t = await createTestApp('placement_notices');
    if (t.index.target.kind !== 'postgres') throw new Error('needs a server');
    url = t.index.target.url;
  }, 60_000);
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    for (const n of opened.splice(0)) await n.close();
  });
  afterAll(async () => {
    await t.close();
  });

  it('reaches the other instance once, not the sender, and only while another listens', async () => {
    const first = notices();
    // Alone: nobody listens, so nothing goes out, and a later instance never hears it.
    await new Promise((r) => setTimeout(r, 300));
    expect(first.peersListening()).toBe(false);
    first.announce('0'.repeat(64), 'unheard');
    const second = notices();
    await listening(first, second);

    first.announce(HASH, '4096:17:1.5:2.5');
    expect(await heardOf(second, HASH)).toBe('4096:17:1.5:2.5');
    expect(second.take(HASH)).toBeUndefined();
    expect(second.take('0'.repeat(64))).toBeUndefined();
    expect(first.take(HASH)).toBeUndefined();
  });

  it('a notice too large for one NOTIFY goes out in parts', async () => {
    const [first, second] = [notices(), notices()];
    await listening(first, second);
    const hashes = Array.from({ length: 300 }, (_, i) => i.toString(16).padStart(64, '0'));
    for (const hash of hashes) first.announce(hash, `v${hash.slice(-3)}`);
    expect(await heardOf(second, hashes[299]!)).toBe(`v${hashes[299]!.slice(-3)}`);
    for (const hash of hashes.slice(0, 299)) expect(second.take(hash)).toBe(`v${hash.slice(-3)}`);
  });

  it('connects again after its connection is cut, and notices flow again', async () => {
    const [first, second] = [notices(), notices()];
    await listening(first, second);
    const { rows } = await sql<{ ended: boolean }>`select pg_terminate_backend(pid) as ended
      from pg_stat_activity where application_name = ${`${ALONE} placements`}
        and datname = current_database()`.execute(t.index.db);
    expect(rows.map((r) => r.ended)).toEqual([true, true]);
    // Reconnected within about a second (each then says hello under a new id).
    const hash = 'b'.repeat(64);
    const heard = await heardOf(second, hash, () => first.announce(hash, 'after the cut'));
    expect(heard).toBe('after the cut');
  });

  it('another instance’s watch takes its new file as verified, and still checks a change', async () => {
    await t.index.db.deleteFrom('asset').execute();
    // The test app places (its runtime announces on its schema's channel, as `main.ts`'s
    // does); the other instance listens on the same channel.
    const placing = t.runtime.resources.placements!;
    const watching = notices(SCHEMA);
    await listening(placing, watching);
    const { app } = t;
    // The other instance: its own verifier, identities and watch on the same folder.
    const identities = new FileIdentities();
    const verifier = new Verifier({
      db: t.index.db,
      blobs: t.blobs,
      logger,
      identities,
      peerPlacements: watching,
    });
    const checked: string[] = [];
    const verifyAsset = verifier.verifyAsset.bind(verifier);
    verifier.verifyAsset = (row, lane) => {
      checked.push(row.hash);
      return verifyAsset(row, lane);
    };
    worker = VerifierWorker.start({
      verifier,
      root: t.storageRoot,
      intervalHours: 0,
      logger,
      // The notice must come before the watch acts (else it reads the file: correct, but
      // not what is tested): a second of quiet leaves room for a loaded machine.
      debounce: { quietMs: 1_000, maxWaitMs: 2_000 },
    });
    await worker.ready;

    const stored = await ingestFile(app, 'placed by the other instance', 'placed.txt');
    const file = path.join(t.storageRoot, stored.filename);
    const version = () => {
      const stat = fs.statSync(file);
      return `${stat.size}:${stat.ino}:${stat.mtimeMs}:${stat.ctimeMs}`;
    };
    // Generous waits: a CI machine running three test files at once is slow to deliver.
    await waitUntil(() => Promise.resolve(identities.matches(stored.filename, version())), 20_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(checked).toEqual([]);

    fs.writeFileSync(file, 'changed behind its back');
    await waitUntil(
      async () => (await findAssetByHash(t.index.db, stored.hash))?.is_corrupted === true,
      20_000,
    );
    // Checked, and nothing else: a write the watch sees as two changes is checked twice.
    expect(new Set(checked)).toEqual(new Set([stored.hash]));
    expect(identities.matches(stored.filename, version())).toBe(false);
  }, 60_000);
});
