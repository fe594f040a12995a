import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AdvisoryLock } from '@svc/database';
import { testDatabaseMode } from '@svc/testing';
import { freePort, spawnService, stopIfRunning, waitUntil } from '@svc/testing/service-process';
import { SCHEMA } from '../src/db/database.js';
import {
  ADMIN,
  ENTRY,
  ingest,
  logged,
  useInstances,
  type Acknowledged,
  type Instance,
} from './instance-harness.js';

// Two or three starts of the whole service through tsx, and hundreds of ingests.
const TIMEOUT_MS = 180_000;

const { sandbox, started, startInstances, assetFiles } = useInstances('asset-store-instances-');

/** Each instance's [start, end] log times of the work that logs `begin` … `end`. */
function spans(instances: Instance[], begin: string, end: string): [number, number][] {
  return instances.flatMap(({ service }) => {
    const starts = logged(service, begin).map((l) => l.time as number);
    const ends = logged(service, end).map((l) => l.time as number);
    expect(ends.length).toBe(starts.length);
    return starts.map((s, i): [number, number] => [s, ends[i]!]);
  });
}

function expectNoOverlap(intervals: [number, number][]): void {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < sorted.length; i++) {
    expect(sorted[i]![0]).toBeGreaterThanOrEqual(sorted[i - 1]![1]);
  }
}

/** Stores `count` files of `size` random bytes straight into the root (no index, no attributes). */
function storeLooseFiles(count: number, size: number): void {
  const root = path.join(sandbox.dir, 'assets');
  fs.mkdirSync(root, { recursive: true });
  for (let i = 0; i < count; i++) {
    const timestamp = 1_700_000_000_000 + i;
    const content = randomBytes(size);
    const stamp = Buffer.alloc(8);
    stamp.writeBigUInt64BE(BigInt(timestamp));
    const hash = createHash('sha256').update(stamp).update(content).digest('hex');
    fs.writeFileSync(path.join(root, `${timestamp}_${hash}.bin`), content);
  }
}

// Skipped on the embedded database: several instances need a PostgreSQL server (the
// embedded one refuses a second process, tested below).
const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;

onServer('two instances on one PostgreSQL database and one storage folder', () => {
  it(
    'give 500 concurrent ingests of one file 500 distinct timestamps, and keep every acknowledged asset',
    async () => {
      const url = (await sandbox.serverDatabaseUrl('asset_instances'))!;
      const [a, b] = await startInstances(url, 2);
      const content = randomBytes(4096);
      const results = await Promise.allSettled(
        Array.from({ length: 500 }, (_, i) => ingest((i % 2 === 0 ? a! : b!).base, content)),
      );
      const failures = results.filter((r) => r.status === 'rejected');
      expect(failures).toEqual([]);
      const acknowledged = results.map((r) => (r as PromiseFulfilledResult<Acknowledged>).value);
      const timestamps = acknowledged.map((x) => x.timestamp).sort((x, y) => x - y);
      expect(new Set(timestamps).size).toBe(500);
      for (let i = 1; i < timestamps.length; i++) {
        expect(timestamps[i]).toBeGreaterThan(timestamps[i - 1]!);
      }

      // One order for both: each ingest, wherever it lands, is above every earlier answer.
      const sequential: number[] = [];
      for (let i = 0; i < 20; i++) {
        sequential.push((await ingest((i % 2 === 0 ? a! : b!).base, content)).timestamp);
      }
      expect(sequential[0]).toBeGreaterThan(timestamps[timestamps.length - 1]!);
      for (let i = 1; i < sequential.length; i++) {
        expect(sequential[i]).toBeGreaterThan(sequential[i - 1]!);
      }

      // Every acknowledged asset is there, with its bytes, through either instance.
      expect(assetFiles().length).toBe(520);
      expect(assetFiles()).toEqual(expect.arrayContaining(acknowledged.map((x) => x.filename)));
      for (const [i, asset] of acknowledged.entries()) {
        const other = i % 2 === 0 ? b! : a!;
        const download = await fetch(`${other.base}/api/v1/can/0/asset/${asset.hash}`);
        expect(download.status).toBe(200);
        expect(Buffer.from(await download.arrayBuffer()).equals(content)).toBe(true);
      }
      const list = await fetch(`${a!.base}/api/v1/can/0/list?limit=1000`);
      const { data } = (await list.json()) as { data: { items: { hash: string }[] } };
      expect(data.items.length).toBe(520);
    },
    TIMEOUT_MS,
  );

  it(
    'run a scrub on one instance at a time, and none while another holds the lease',
    async () => {
      const url = (await sandbox.serverDatabaseUrl('asset_scrub_lease'))!;
      storeLooseFiles(120, 256 * 1024);
      // Held here, as a third instance would: neither start-up scrub may run meanwhile.
      const lease = new AdvisoryLock(url, `${SCHEMA}.scrub`);
      const instances = await lease.run(async () => {
        const up = await startInstances(url, 2);
        await Promise.all(
          up.map(({ service }) =>
            service.waitForLog('scrub skipped: another instance is scrubbing'),
          ),
        );
        return up;
      });
      for (const { service } of instances) expect(logged(service, 'scrub started')).toEqual([]);
      for (const { service } of instances) await stopIfRunning(service);

      // Two instances starting together over the same files: their start-up scrubs never
      // overlap, and each either ran or saw the other's lease.
      const again = await startInstances(url, 2);
      await waitUntil(() =>
        Promise.resolve(
          again.every(
            ({ service }) =>
              logged(service, 'scrub finished').length +
                logged(service, 'scrub skipped: another instance is scrubbing').length ===
              1,
          ),
        ),
      );
      const ran = spans(again, 'scrub started', 'scrub finished');
      expect(ran.length).toBeGreaterThanOrEqual(1);
      expectNoOverlap(ran);
      const checked = again.flatMap(({ service }) =>
        logged(service, 'scrub finished').map((l) => l.checked),
      );
      expect(checked.every((n) => n === 120)).toBe(true);
    },
    TIMEOUT_MS,
  );

  it(
    "run one rebuild at a time: a rebuild asked of one instance waits for the other's",
    async () => {
      const url = (await sandbox.serverDatabaseUrl('asset_rebuild_lock'))!;
      storeLooseFiles(150, 256 * 1024);
      const instances = await startInstances(url, 2);
      const rebuild = (base: string) =>
        fetch(`${base}/api/v1/can/0/admin/rebuild?mode=hard`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${ADMIN}` },
        }).then(async (res) => ({ status: res.status, body: await res.json() }));

      // While another holds the lock, a rebuild asked for does not start.
      const lock = new AdvisoryLock(url, `${SCHEMA}.rebuild`);
      const rebuildsStarted = () =>
        instances.reduce((n, { service }) => n + logged(service, 'rebuild started').length, 0);
      // The start-up rebuild of the empty index, by whichever instance came first.
      expect(rebuildsStarted()).toBe(1);
      let pending: Promise<{ status: number; body: unknown }> | undefined;
      await lock.run(async () => {
        pending = rebuild(instances[0]!.base);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        expect(rebuildsStarted()).toBe(1);
      });
      const report = { mode: 'hard', scanned: 150, indexed: 150, errors: 0 };
      await expect(pending).resolves.toEqual({
        status: 200,
        body: { status: 'success', data: report },
      });

      // Both at once: both answer with a whole rebuild, one after the other.
      const both = await Promise.all(instances.map(({ base }) => rebuild(base)));
      expect(both).toEqual([
        { status: 200, body: { status: 'success', data: report } },
        { status: 200, body: { status: 'success', data: report } },
      ]);
      // The answer can beat the log line through the pipe: wait for every rebuild's end.
      const ended = (started: string, finished: string) =>
        instances.every(
          ({ service }) => logged(service, finished).length === logged(service, started).length,
        );
      await waitUntil(() => Promise.resolve(ended('rebuild started', 'rebuild finished')), 10_000);
      expectNoOverlap(spans(instances, 'rebuild started', 'rebuild finished'));
      const list = await fetch(`${instances[1]!.base}/api/v1/can/0/list?limit=1000`);
      const { data } = (await list.json()) as { data: { items: unknown[] } };
      expect(data.items.length).toBe(150);
    },
    TIMEOUT_MS,
  );
});

describe('the embedded database', () => {
  it(
    'refuses a second process on the same storage folder, naming the one that has it',
    async () => {
      const root = path.join(sandbox.dir, 'assets');
      const start = async (name: string) => {
        const port = await freePort();
        const config = sandbox.configFile(
          `storage_root: ${root}\nlisten: 127.0.0.1:${port}\nlog_level: warn\n`,
          name,
        );
        const service = spawnService(ENTRY, [config]);
        started.push(service);
        return { service, base: `http://127.0.0.1:${port}` };
      };
      const first = await start('first.yaml');
      await waitUntil(async () => (await fetch(`${first.base}/healthz`)).status === 200);
      const second = await start('second.yaml');
      const exit = await second.service.exited;
      expect(exit.code).toBe(1);
      expect(second.service.stderr()).toMatch(
        new RegExp(`^asset-store: failed to start: .*${first.service.child.pid}`),
      );
      expect((await fetch(`${first.base}/healthz`)).status).toBe(200);
    },
    TIMEOUT_MS,
  );
});
