import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { storeAsset, insertAssetRow, freshTimestamp } from './factories.js';
import { useTestApp } from './test-app.js';

const TOKEN = 'job-token';
const BASE = '/api/v1/can/0/admin/jobs';
const auth = { Authorization: `Bearer ${TOKEN}` };

const t = useTestApp('jobs', { admin_token: TOKEN });
beforeEach(async () => {
  await t.index.db.deleteFrom('asset').execute();
  await t.index.db.deleteFrom('job').execute();
  for (const entry of fs.readdirSync(t.storageRoot)) {
    if (!entry.startsWith('.')) fs.rmSync(path.join(t.storageRoot, entry), { recursive: true });
  }
});

interface JobBody {
  id: string;
  kind: string;
  status: string;
  started_at: number;
  finished_at: number | null;
  total: number | null;
  done: number;
  bytes_total: number | null;
  bytes_done: number;
  rate: number | null;
  bytes_rate: number | null;
  eta_s: number | null;
  result: unknown;
  error: string | null;
}

async function getJob(id: string): Promise<JobBody> {
  const res = await request(t.app).get(`${BASE}/${id}`).set(auth).expect(200);
  return (res.body as { data: JobBody }).data;
}

async function startJob(body: object): Promise<JobBody> {
  const res = await request(t.app).post(BASE).set(auth).send(body).expect(202);
  return (res.body as { data: JobBody }).data;
}

async function untilEnded(id: string, timeoutMs = 30_000): Promise<JobBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await getJob(id);
    if (job.status !== 'running') return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still running`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function storedStatus(id: string): Promise<unknown> {
  return t.index.db
    .selectFrom('job')
    .select(['status', 'error', 'done', 'total'])
    .where('id', '=', id)
    .executeTakeFirst();
}

const GIB = 2 ** 30;

/**
 * Sparse files of `size` bytes (no disk space, yet each takes a while to hash) indexed as
 * already corrupted, so a scrub reads each once and changes nothing.
 */
async function placeSparseAssets(count: number, size: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const timestamp = freshTimestamp();
    const file = path.join(
      t.storageRoot,
      `${timestamp}_${'f'.repeat(64 - String(i).length)}${i}.bin`,
    );
    fs.closeSync(fs.openSync(file, 'w'));
    fs.truncateSync(file, size);
    await insertAssetRow(t.index.db, {
      timestamp,
      hash: `${'f'.repeat(64 - String(i).length)}${i}`,
      path: path.basename(file),
      size,
      is_corrupted: true,
      content_sha256: '0'.repeat(64),
    });
  }
}

describe('admin jobs', () => {
  it('need the admin token', async () => {
    const res = await request(t.app).post(BASE).send({ kind: 'verify' }).expect(401);
    expect(res.body).toEqual({ status: 'error', error: 'missing or invalid admin token' });
    await request(t.app).get(BASE).expect(401);
    await request(t.app)
      .get(`${BASE}/${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`)
      .expect(401);
  });

  it.each([
    [{}, 'invalid kind: expected "verify" or "rebuild"'],
    [{ kind: 'scrub' }, 'invalid kind: expected "verify" or "rebuild"'],
    [{ kind: 'rebuild', mode: 'medium' }, 'invalid mode: expected "soft" or "hard"'],
    [{ kind: 'verify', extra: 1 }, 'invalid body: unknown field "extra"'],
    [[], 'invalid body: expected a JSON object'],
  ])('refuse the body %j with a 400 naming the field', async (body, error) => {
    const res = await request(t.app).post(BASE).set(auth).send(body).expect(400);
    expect(res.body).toEqual({ status: 'error', error });
    expect(await t.index.db.selectFrom('job').select('id').execute()).toEqual([]);
  });

  it('answer 400 for a malformed id and 404 for an unknown one', async () => {
    const bad = await request(t.app).get(`${BASE}/nope`).set(auth).expect(400);
    expect(bad.body).toEqual({ status: 'error', error: 'invalid id: expected a job id (UUID)' });
    const unknown = await request(t.app)
      .delete(`${BASE}/00000000-0000-4000-8000-000000000000`)
      .set(auth)
      .expect(404);
    expect(unknown.body).toEqual({ status: 'error', error: 'job not found' });
  });

  it('run a verify in the background and end with the scrub report and full counts', async () => {
    const good = await storeAsset(t, 'intact content');
    const bad = await storeAsset(t, 'will be damaged');
    fs.writeFileSync(bad.file, 'damaged');
    const started = await startJob({ kind: 'verify' });
    expect(started).toMatchObject({ kind: 'verify', status: 'running', finished_at: null });

    const job = await untilEnded(started.id);
    const bytes = good.row.size + bad.row.size;
    expect(job).toEqual({
      id: started.id,
      kind: 'verify',
      status: 'done',
      started_at: started.started_at,
      finished_at: expect.any(Number) as number,
      total: 2,
      done: 2,
      bytes_total: bytes,
      bytes_done: expect.any(Number) as number,
      rate: expect.any(Number) as number,
      bytes_rate: expect.any(Number) as number,
      eta_s: null,
      result: { checked: 2, corrupted: 1, missing: 0, duration_ms: expect.any(Number) as number },
      error: null,
    });
    // The damaged file is shorter than its row says: what was read is counted, up to the total.
    expect(job.bytes_done).toBeLessThanOrEqual(bytes);
    expect(job.finished_at!).toBeGreaterThanOrEqual(job.started_at);
    expect(await storedStatus(job.id)).toEqual({ status: 'done', error: null, done: 2, total: 2 });
    const flagged = await t.index.db
      .selectFrom('asset')
      .select('is_corrupted')
      .where('hash', '=', bad.row.hash)
      .executeTakeFirstOrThrow();
    expect(flagged.is_corrupted).toBe(true);

    const list = await request(t.app).get(BASE).set(auth).expect(200);
    expect(list.body).toEqual({ status: 'success', data: [job] });
    // Once it shows as ended, another of its kind may start at once.
    const again = await startJob({ kind: 'verify' });
    expect((await untilEnded(again.id)).status).toBe('done');
  });

  it('run a rebuild from the files and end with the rebuild report', async () => {
    const assets = [
      await storeAsset(t, 'one'),
      await storeAsset(t, 'two'),
      await storeAsset(t, 'three'),
    ];
    await t.index.db.deleteFrom('asset').execute();
    const started = await startJob({ kind: 'rebuild' });
    const job = await untilEnded(started.id);
    expect(job).toMatchObject({
      kind: 'rebuild',
      status: 'done',
      total: 3,
      done: 3,
      bytes_total: null,
      bytes_done: 0,
      bytes_rate: null,
      eta_s: null,
      result: { mode: 'soft', scanned: 3, indexed: 3, errors: 0 },
      error: null,
    });
    const rows = await t.index.db.selectFrom('asset').select('hash').orderBy('timestamp').execute();
    expect(rows.map((r) => r.hash)).toEqual(assets.map((a) => a.row.hash));

    const hard = await untilEnded((await startJob({ kind: 'rebuild', mode: 'hard' })).id);
    expect(hard.result).toEqual({ mode: 'hard', scanned: 3, indexed: 3, errors: 0 });
  });

  it('cancel a rebuild at its next file, keeping what it indexed', async () => {
    // Files without attributes: each is hashed whole to be indexed, four at a time, so the
    // rebuild goes in slow waves; it is cancelled once the first wave is done.
    const size = 128 * 2 ** 20;
    for (let i = 0; i < 12; i++) {
      const name = `${freshTimestamp()}_${i.toString(16).padStart(64, '0')}.bin`;
      fs.closeSync(fs.openSync(path.join(t.storageRoot, name), 'w'));
      fs.truncateSync(path.join(t.storageRoot, name), size);
    }
    const started = await startJob({ kind: 'rebuild' });
    const deadline = Date.now() + 30_000;
    while ((await getJob(started.id)).done === 0) {
      if (Date.now() > deadline) throw new Error('no file indexed within 30 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    const res = await request(t.app).delete(`${BASE}/${started.id}`).set(auth).expect(200);
    const job = (res.body as { data: JobBody }).data;
    const result = job.result as { mode: string; scanned: number; indexed: number; errors: number };
    expect(job).toMatchObject({ status: 'cancelled', total: 12, error: null });
    expect(result.mode).toBe('soft');
    expect(result.errors).toBe(0);
    expect(result.indexed).toBeGreaterThan(0);
    expect(result.indexed).toBeLessThan(12);
    expect(job.done).toBe(result.indexed);
    const rows = await t.index.db.selectFrom('asset').select('hash').execute();
    expect(rows).toHaveLength(result.indexed);
    expect(await storedStatus(job.id)).toEqual({
      status: 'cancelled',
      error: null,
      done: result.indexed,
      total: 12,
    });
  }, 60_000);

  it('show progress moving every second, run one of a kind at a time, and cancel', async () => {
    await placeSparseAssets(4, 2 * GIB);
    const started = await startJob({ kind: 'verify' });
    expect(started).toMatchObject({ total: 4, bytes_total: 8 * GIB, status: 'running' });

    const second = await request(t.app).post(BASE).set(auth).send({ kind: 'verify' }).expect(409);
    expect(second.body).toEqual({
      status: 'error',
      error: `a verify job is already running: ${started.id}`,
    });

    // Samples every 200 ms for about 2.5 s: each sample at least a second after another
    // shows more bytes done than that one.
    const samples: { at: number; job: JobBody }[] = [];
    const until = Date.now() + 2500;
    while (Date.now() < until) {
      samples.push({ at: Date.now(), job: await getJob(started.id) });
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(samples.every((s) => s.job.status === 'running')).toBe(true);
    let windows = 0;
    for (const [i, earlier] of samples.entries()) {
      const later = samples.slice(i + 1).find((s) => s.at - earlier.at >= 1000);
      if (!later) break;
      windows++;
      expect(later.job.bytes_done).toBeGreaterThan(earlier.job.bytes_done);
    }
    expect(windows).toBeGreaterThan(3);
    const last = samples[samples.length - 1]!.job;
    expect(last.bytes_rate).toBeGreaterThan(0);
    expect(last.eta_s).toBeGreaterThan(0);
    expect(last.bytes_done).toBeLessThan(8 * GIB);

    const cancelled = await request(t.app).delete(`${BASE}/${started.id}`).set(auth).expect(200);
    const job = (cancelled.body as { data: JobBody }).data;
    expect(job).toMatchObject({ id: started.id, status: 'cancelled', eta_s: null, error: null });
    expect(job.finished_at).toEqual(expect.any(Number));
    const result = job.result as { checked: number };
    expect(result.checked).toBeLessThan(4);
    expect(await storedStatus(started.id)).toMatchObject({ status: 'cancelled', error: null });
    // Cancelling again changes nothing; a new job of the kind may start.
    const again = await request(t.app).delete(`${BASE}/${started.id}`).set(auth).expect(200);
    expect((again.body as { data: JobBody }).data).toMatchObject({ status: 'cancelled' });
    const next = await startJob({ kind: 'verify' });
    await request(t.app).delete(`${BASE}/${next.id}`).set(auth).expect(200);
  }, 60_000);
});
