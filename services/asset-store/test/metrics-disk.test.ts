import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '@svc/envelope';
import request from 'supertest';
import type { App } from '../src/app.js';
import type { AssetMetrics } from '../src/metrics/asset-metrics.js';
import type { Verifier } from '../src/verifier/verifier.service.js';
import { VerifierWorker } from '../src/verifier/verifier.worker.js';
import { freshTimestamp, insertAssetRow, storeAsset } from './factories.js';
import { useTestApp, variantApp } from './test-app.js';

// The file system watch's lag, and job progress over multi-GiB sparse files: disk only.
// metrics.test.ts has the rest, on disk and on S3.

const TOKEN = 'metrics-token';
const BASE = '/api/v1/can/0';
const auth = { Authorization: `Bearer ${TOKEN}` };
const logger = createLogger('metrics-test', 'silent');

const t = useTestApp('metrics_disk', { admin_token: TOKEN });
let app: App;
let metrics: AssetMetrics;
let verifier: Verifier;
let worker: VerifierWorker | undefined;
beforeEach(async () => {
  await t.index.db.deleteFrom('asset').execute();
  await t.index.db.deleteFrom('job').execute();
  // As the runtime wires it: the verifier reports to the same metrics as the app; fresh
  // services, so every counter starts at zero.
  ({
    app,
    runtime: {
      services: { metrics, verifier },
    },
  } = variantApp(t));
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});

/** The value of one series in `/metrics` (0 when absent); labels as written, sorted. */
async function series(name: string, labels = ''): Promise<number> {
  const res = await request(app).get('/metrics').expect(200);
  const line = res.text
    .split('\n')
    .find((l) => l.startsWith(labels ? `${name}{${labels}} ` : `${name} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('metrics on disk', () => {
  it('observe the lag from a change in the storage root to its check', async () => {
    const asset = await storeAsset(t, 'watched content');
    worker = VerifierWorker.start({
      verifier,
      root: t.storageRoot,
      intervalHours: 0,
      logger,
      debounce: { quietMs: 50, maxWaitMs: 200 },
      onChangeChecked: (lag) => metrics.changeChecked(lag),
    });
    await worker.ready;
    const count = 'asset_store_verifier_change_check_lag_seconds_count';
    expect(await series(count)).toBe(0);
    fs.writeFileSync(asset.file, 'changed behind its back');
    const deadline = Date.now() + 5000;
    while ((await series(count)) === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    // One write may reach the watch as a few events, so as one batch or more.
    const checks = await series(count);
    expect(checks).toBeGreaterThanOrEqual(1);
    // Each batch waits the quiet time (50 ms) at least, and all are well within 5 s.
    const sum = await series('asset_store_verifier_change_check_lag_seconds_sum');
    expect(sum).toBeGreaterThanOrEqual(0.05 * checks);
    expect(sum / checks).toBeLessThan(5);
  });

  it("show a running job's progress, and none once it is cancelled", async () => {
    const size = 2 ** 31;
    for (let i = 0; i < 2; i++) {
      const timestamp = freshTimestamp();
      const hash = `${'e'.repeat(63)}${i}`;
      const name = `${timestamp}_${hash}.bin`;
      fs.closeSync(fs.openSync(path.join(t.storageRoot, name), 'w'));
      fs.truncateSync(path.join(t.storageRoot, name), size);
      await insertAssetRow(t.index.db, { timestamp, hash, path: name, size, is_corrupted: true });
    }
    expect(await series('asset_store_job_running', 'kind="verify"')).toBe(0);
    const res = await request(app)
      .post(`${BASE}/admin/jobs`)
      .set(auth)
      .send({ kind: 'verify' })
      .expect(202);
    const { id } = (res.body as { data: { id: string } }).data;
    expect(await series('asset_store_job_running', 'kind="verify"')).toBe(1);
    expect(await series('asset_store_job_items', 'kind="verify"')).toBe(2);
    expect(await series('asset_store_job_bytes', 'kind="verify"')).toBe(2 * size);
    const deadline = Date.now() + 5000;
    while ((await series('asset_store_job_bytes_done', 'kind="verify"')) === 0) {
      if (Date.now() > deadline) throw new Error('no progress within 5 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    await request(app).delete(`${BASE}/admin/jobs/${id}`).set(auth).expect(200);
    expect(await series('asset_store_job_running', 'kind="verify"')).toBe(0);
    expect(await series('asset_store_job_bytes_done', 'kind="verify"')).toBe(0);
  });
});
