import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { freshTimestamp } from './factories.js';
import {
  emptyBeforeEach,
  getJob,
  GIB,
  JOB_TOKEN,
  jobAuth,
  JOBS,
  placeSparseAssets,
  startJob,
  storedStatus,
  type JobBody,
} from './job-helpers.js';
import { useTestApp, variantApp } from './test-app.js';

const t = useTestApp('job_progress', { admin_token: JOB_TOKEN });
emptyBeforeEach(t);

describe('a running job', () => {
  it('cancel a rebuild at its next file, keeping what it indexed', async () => {
    // Files without attributes: each is hashed whole to be indexed, four at a time, so the
    // rebuild goes in slow waves; it is cancelled once the first wave is done.
    const size = 128 * 2 ** 20;
    for (let i = 0; i < 12; i++) {
      const name = `${freshTimestamp()}_${i.toString(16).padStart(64, '0')}.bin`;
      fs.closeSync(fs.openSync(path.join(t.storageRoot, name), 'w'));
      fs.truncateSync(path.join(t.storageRoot, name), size);
    }
    const started = await startJob(t.app, { kind: 'rebuild' });
    const deadline = Date.now() + 30_000;
    while ((await getJob(t.app, started.id)).done === 0) {
      if (Date.now() > deadline) throw new Error('no file indexed within 30 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    const res = await request(t.app).delete(`${JOBS}/${started.id}`).set(jobAuth).expect(200);
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
    expect(await storedStatus(t, job.id)).toEqual({
      status: 'cancelled',
      error: null,
      done: result.indexed,
      total: 12,
    });
  }, 60_000);

  it('show progress moving every second, run one of a kind at a time, and cancel', async () => {
    // 16 GiB to hash: several seconds even on a fast, idle machine.
    await placeSparseAssets(t, 4, 4 * GIB);
    const started = await startJob(t.app, { kind: 'verify' });
    expect(started).toMatchObject({ total: 4, bytes_total: 16 * GIB, status: 'running' });

    const second = await request(t.app)
      .post(JOBS)
      .set(jobAuth)
      .send({ kind: 'verify' })
      .expect(409);
    expect(second.body).toEqual({
      status: 'error',
      error: `a verify job is already running: ${started.id}`,
    });

    // Samples every 200 ms for 3 s (fewer when a loaded machine answers slowly): each sample
    // at least a second after another shows more bytes done than that one.
    const samples: { at: number; job: JobBody }[] = [];
    const until = Date.now() + 3000;
    while (Date.now() < until) {
      samples.push({ at: Date.now(), job: await getJob(t.app, started.id) });
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
    expect(windows).toBeGreaterThanOrEqual(2);
    const last = samples[samples.length - 1]!.job;
    expect(last.bytes_rate).toBeGreaterThan(0);
    expect(last.eta_s).toBeGreaterThan(0);
    expect(last.bytes_done).toBeLessThan(16 * GIB);

    const cancelled = await request(t.app).delete(`${JOBS}/${started.id}`).set(jobAuth).expect(200);
    const job = (cancelled.body as { data: JobBody }).data;
    expect(job).toMatchObject({ id: started.id, status: 'cancelled', eta_s: null, error: null });
    expect(job.finished_at).toEqual(expect.any(Number));
    const result = job.result as { checked: number };
    expect(result.checked).toBeLessThan(4);
    expect(await storedStatus(t, started.id)).toMatchObject({ status: 'cancelled', error: null });
    // Cancelling again changes nothing; a new job of the kind may start.
    const again = await request(t.app).delete(`${JOBS}/${started.id}`).set(jobAuth).expect(200);
    expect((again.body as { data: JobBody }).data).toMatchObject({ status: 'cancelled' });
    const next = await startJob(t.app, { kind: 'verify' });
    await request(t.app).delete(`${JOBS}/${next.id}`).set(jobAuth).expect(200);
  }, 60_000);

  it("log and save a running job's progress at each checkpoint", async () => {
    await placeSparseAssets(t, 2, 2 * GIB);
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    // Every 100 ms here; 10 s in the service.
    const { app } = variantApp(t, { logger, jobCheckpointMs: 100 });
    const res = await request(app).post(JOBS).set(jobAuth).send({ kind: 'verify' }).expect(202);
    const { id } = (res.body as { data: JobBody }).data;
    const progress = () => lines.filter((l) => l.msg === 'job progress');
    const deadline = Date.now() + 10_000;
    while (progress().filter((l) => (l.bytes_done as number) > 0).length < 2) {
      if (Date.now() > deadline) throw new Error('fewer than two progress lines in 10 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(progress()[0]).toMatchObject({
      job: id,
      kind: 'verify',
      total: 2,
      bytes_total: 4 * GIB,
      done: expect.any(Number) as number,
      rate: expect.any(Number) as number,
    });
    const saved = await t.index.db
      .selectFrom('job')
      .select(['status', 'bytes_done', 'bytes_total'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(saved).toMatchObject({ status: 'running', bytes_total: 4 * GIB });
    expect(saved.bytes_done).toBeGreaterThan(0);
    await request(app).delete(`${JOBS}/${id}`).set(jobAuth).expect(200);
    expect(lines.some((l) => l.msg === 'job cancelled')).toBe(true);
  }, 60_000);
});
